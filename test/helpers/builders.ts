import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document, type ApprovalStatus, type DocumentType } from '../../db/documents/document.entity.ts';
import { LineItem } from '../../db/documents/line-item.entity.ts';
import { DocumentNote } from '../../db/documents/note.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { ensureTags, tagDocument } from '../../db/tags/tag.repository.ts';
import { FlowFile, toFlowDefinition } from '../../db/workflow-steps/flow-file.ts';
import { WorkflowFlow } from '../../db/workflow-steps/workflow-flow.entity.ts';
import { lifecycleSubjectOf } from '../../services/documents/document-processes.ts';
import { startDocumentLifecycle } from '../../temporal/documents.ts';
import { type TemporalHandle } from '../../temporal/handle.ts';

let sequence = 0;

export interface DocumentSeed {
  documentNumber?: string;
  fiscalReference?: string;
  type?: DocumentType;
  amountCents?: bigint;
  approvalStatus?: ApprovalStatus;
  issueDate?: Date;
  expirationDate?: Date | null;
  isCanceled?: boolean;
  beneficiaryName?: string;
  tags?: string[];
  payments?: number;
  notes?: number;
}

/** A document as an import would leave it, with optional payables, payments, notes and tags, written directly. */
export async function seedDocument(orm: Orm, company: Company, seed: DocumentSeed = {}): Promise<Document> {
  const em = companyEm(orm, company.id);
  const n = ++sequence;
  const beneficiary = em.create(Beneficiary, {
    company,
    name: seed.beneficiaryName ?? `Proveedor ${n} S.A.S.`,
    identifierType: 'NIT',
    identifierNumber: `${process.pid}${n}`.padStart(9, '8'),
  });
  const document = em.create(Document, {
    company,
    beneficiary,
    country: company.country,
    documentNumber: seed.documentNumber ?? `SEED${n}`,
    type: seed.type ?? 'invoice',
    amountCents: seed.amountCents ?? 119_000_00n,
    currency: company.country === 'COL' ? 'COP' : 'MXN',
    approvalStatus: seed.approvalStatus ?? 'pending',
    issueDate: seed.issueDate ?? new Date('2026-10-01T10:00:00-05:00'),
    expirationDate: seed.expirationDate === undefined ? new Date('2026-10-31T00:00:00-05:00') : seed.expirationDate,
    fiscalReference:
      seed.fiscalReference ??
      `${process.pid.toString(16).padStart(8, '0')}${n.toString(16).padStart(8, '0')}${'a'.repeat(80)}`,
    fiscalMetadata: { finalNotes: [`Nota ${n}`] },
    isCanceled: seed.isCanceled ?? false,
    createdBy: { source: 'fiscal', user: null },
  });
  em.create(LineItem, {
    company,
    document,
    position: 1,
    name: 'Servicio',
    quantity: '1',
    unitPriceCents: 100_000_00n,
    currency: document.currency,
    subtotalCents: 100_000_00n,
    totalCents: 119_000_00n,
  });
  em.create(ActivityLog, { company, document, event: 'document.created', actor: { type: 'system', source: 'fiscal' } });
  for (let note = 0; note < (seed.notes ?? 0); note++)
    em.create(DocumentNote, { company, document, comment: `Comentario ${note}`, createdBy: { name: 'Seed' } });
  if (seed.payments) {
    const payable = em.create(Payable, {
      company,
      document,
      beneficiary,
      amountCents: document.amountCents,
      currency: document.currency,
      balanceCents: document.amountCents,
      origin: 'document',
      issueDate: '2026-10-01',
      expirationDate: '2026-10-31',
    });
    for (let payment = 0; payment < seed.payments; payment++) {
      em.create(Payment, {
        company,
        payable,
        beneficiary,
        amountCents: 1_000_00n,
        currency: document.currency,
        status: 'processed',
        payDate: '2026-10-31',
        paidAt: new Date(),
        paymentMethod: 'banking_correspondent',
      });
    }
  }
  await em.flush();
  if (seed.tags?.length) await tagDocument(em, company, document, await ensureTags(em, company, seed.tags));
  return document;
}

/** Starts the document's lifecycle workflow as an import would. */
export async function startLifecycle(temporal: TemporalHandle, document: Document): Promise<void> {
  await startDocumentLifecycle(temporal, lifecycleSubjectOf(document));
}

/** Sets the company's flow from a flow file, as `ops flows set` does (assignees must be members). */
export async function setFlow(orm: Orm, company: Company, file: unknown): Promise<void> {
  const em = companyEm(orm, company.id);
  await em.upsert(
    WorkflowFlow,
    { company, definition: toFlowDefinition(FlowFile.parse(file)) },
    { onConflictFields: ['company'], onConflictAction: 'merge', onConflictMergeFields: ['definition', 'updatedAt'] },
  );
}
