// SAT's metadata applied to a Mexican company's documents (fiscal sync, `ops documents import`): a CFDI SAT lists with
// Estatus 0 that the company has (by UUID, its fiscal reference) is cancelled here too. In one transaction, the
// document locked: `is_canceled` with SAT's FechaCancelacion, its open payables `canceled`, and one log entry naming
// what was cancelled and which payments the gateway already holds. Then each pending payment is cancelled through its
// own process (the path `ops payments cancel` takes), which refuses once its money may have left. A new payment of the
// document is refused from the commit on (`document_canceled`), and a pending payment that reaches its pay date anyway
// is not sent (`submitPayment`). Applying the same lines again changes nothing more and logs nothing; it only finishes
// cancelling payments an interrupted run left pending.
import { LockMode } from '@mikro-orm/core';
import { Company } from '../../db/companies/company.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { MalformedLine, SatMetadataItem, SatMetadataRecord } from '../../fiscal/sat-metadata.ts';
import { Refusal } from '../../platform/refusal.ts';
import type { Processes } from '../processes.ts';
import { satCancellationReason } from '../payments/cancel-payment.ts';

/** Lines named in a report at most (each kind); the counts have them all. */
export const MAX_NAMED_LINES = 100;
/** Lines looked up together: one query finds which of their UUIDs the company has. */
const BATCH = 500;

/** What applying metadata did, line by line counted. */
export interface MetadataReport {
  /** Data lines read (the header and blank lines aside). */
  lines: number;
  /** Lines about a CFDI the company has, whatever their status. */
  applied: number;
  /** Documents this application cancelled (a document already cancelled is not counted again). */
  canceled: number;
  /** Lines whose UUID the company does not have: counted and passed over. */
  unknown: number;
  /** Lines that could not be read. */
  malformed: number;
  malformedLines: MalformedLine[];
  /** Lines whose UUID is the company's but whose issuer is not the document's: passed over. */
  conflicting: number;
  conflictingLines: MalformedLine[];
  /** Pending payments cancelled through their process. */
  paymentsCanceled: string[];
  /** Payments their process would not cancel (already handed to the gateway), with its answer. */
  paymentsNotCanceled: { payment: string; code: string; message: string }[];
}

export const emptyReport = (): MetadataReport => ({
  lines: 0,
  applied: 0,
  canceled: 0,
  unknown: 0,
  malformed: 0,
  malformedLines: [],
  conflicting: 0,
  conflictingLines: [],
  paymentsCanceled: [],
  paymentsNotCanceled: [],
});

/** Adds one report to another (several files, several packages). */
export function addReports(total: MetadataReport, more: MetadataReport): MetadataReport {
  return {
    lines: total.lines + more.lines,
    applied: total.applied + more.applied,
    canceled: total.canceled + more.canceled,
    unknown: total.unknown + more.unknown,
    malformed: total.malformed + more.malformed,
    malformedLines: [...total.malformedLines, ...more.malformedLines].slice(0, MAX_NAMED_LINES),
    conflicting: total.conflicting + more.conflicting,
    conflictingLines: [...total.conflictingLines, ...more.conflictingLines].slice(0, MAX_NAMED_LINES),
    paymentsCanceled: [...total.paymentsCanceled, ...more.paymentsCanceled],
    paymentsNotCanceled: [...total.paymentsNotCanceled, ...more.paymentsNotCanceled],
  };
}

/** SAT's metadata is about Mexican CFDI: a Colombian company has none (DIAN cancels nothing; see decisions). */
export class MetadataRefused extends Refusal<'country_mismatch'> {}

export interface CancellationDeps {
  orm: Orm;
  processes: Pick<Processes, 'cancelPayment'>;
}

export interface ApplyMetadataInput {
  companyId: string;
  /** The file's lines, as `readSatMetadata` reads them. */
  items: AsyncIterable<SatMetadataItem>;
  /** Where the metadata came from, for the log (`ops documents import`, `fiscal sync`). */
  readFrom: string;
  /** Lines up to this one were applied by an earlier attempt (whose counts `report` carries): passed over. */
  afterLine?: number;
  /** Counts so far, added to in place (an attempt resumed from its heartbeat). */
  report?: MetadataReport;
  /** Called after each batch with the last line applied, for a heartbeat. */
  onProgress?: (line: number, report: MetadataReport) => void;
}

/**
 * Applies SAT's metadata to the company's documents: each Estatus 0 line whose UUID the company has cancels that
 * document (once) and its pending payments; other lines are counted. Throws NotSatMetadata (from the reader) when the
 * file is not SAT's metadata, and MetadataRefused for a company that is not Mexican.
 */
export async function applySatMetadata(deps: CancellationDeps, input: ApplyMetadataInput): Promise<MetadataReport> {
  const company = await companyEm(deps.orm, input.companyId).findOne(Company, { id: input.companyId });
  if (!company) throw new Error(`company ${input.companyId} does not exist`);
  if (company.country !== 'MEX')
    throw new MetadataRefused(
      'country_mismatch',
      `SAT's metadata is about Mexican CFDI; company ${company.id} is ${company.country}`,
    );
  const report = input.report ?? emptyReport();
  let batch: SatMetadataRecord[] = [];
  let last = input.afterLine ?? 0;
  const flush = async () => {
    await applyBatch(deps, input, report, batch);
    batch = [];
    input.onProgress?.(last, report);
  };
  for await (const item of input.items) {
    const line = 'record' in item ? item.record.line : item.malformed.line;
    if (line <= (input.afterLine ?? 0)) continue;
    last = line;
    report.lines += 1;
    if ('malformed' in item) {
      report.malformed += 1;
      if (report.malformedLines.length < MAX_NAMED_LINES) report.malformedLines.push(item.malformed);
      continue;
    }
    batch.push(item.record);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return report;
}

/** The company's documents of a batch's UUIDs, then each line applied in file order. */
async function applyBatch(
  deps: CancellationDeps,
  input: ApplyMetadataInput,
  report: MetadataReport,
  records: SatMetadataRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const found = await companyEm(deps.orm, input.companyId).find(
    Document,
    { fiscalReference: { $in: [...new Set(records.map((record) => record.uuid))] }, country: 'MEX' },
    { populate: ['beneficiary'] },
  );
  const byUuid = new Map(found.map((document) => [document.fiscalReference!, document]));
  for (const record of records) {
    const document = byUuid.get(record.uuid);
    if (!document) {
      report.unknown += 1;
      continue;
    }
    const issuer = document.beneficiary?.identifierNumber.toUpperCase();
    if (issuer && issuer !== record.issuerRfc) {
      report.conflicting += 1;
      if (report.conflictingLines.length < MAX_NAMED_LINES)
        report.conflictingLines.push({
          line: record.line,
          reason: `RfcEmisor ${record.issuerRfc} is not the issuer of the company's CFDI ${record.uuid} (${issuer})`,
        });
      continue;
    }
    report.applied += 1;
    // A current CFDI changes nothing: SAT never takes a cancellation back.
    if (record.status !== 'canceled') continue;
    const { newly, pending } = await cancelDocument(deps.orm, input, document.id, record);
    if (newly) report.canceled += 1;
    await cancelPendingPayments(deps, input, document.id, record, pending, report);
  }
}

/**
 * Cancels the document, once: its open payables too, and a log entry naming them and the payments the gateway holds.
 * Answers the payments still pending (to cancel through their processes), also when it was already cancelled.
 */
async function cancelDocument(
  orm: Orm,
  input: ApplyMetadataInput,
  documentId: string,
  record: SatMetadataRecord,
): Promise<{ newly: boolean; pending: string[] }> {
  return companyEm(orm, input.companyId).transactional(async (tx) => {
    // Document first, then its payables: the order payments' outcomes lock them in.
    const document = await tx.findOneOrFail(Document, { id: documentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const payables = await tx.find(
      Payable,
      { document },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { installmentNumber: 'asc', id: 'asc' } },
    );
    const payments = payables.length
      ? await tx.find(Payment, { payable: { $in: payables } }, { orderBy: { createdAt: 'asc', id: 'asc' } })
      : [];
    // A pending payment in a batch goes with the batch's release: the gateway has it, or is being given it.
    const pending = payments.filter((payment) => payment.status === 'pending' && !payment.batch);
    if (document.isCanceled) return { newly: false, pending: pending.map((payment) => payment.id) };
    const atGateway = payments.filter(
      (payment) =>
        payment.status === 'in_process' ||
        payment.status === 'processed' ||
        (payment.status === 'pending' && payment.batch),
    );
    const open = payables.filter((payable) => payable.status === 'pending' || payable.status === 'partial');
    document.isCanceled = true;
    document.canceledAt = new Date(record.canceledAt!);
    for (const payable of open) payable.status = 'canceled';
    tx.create(ActivityLog, {
      company: document.company,
      document,
      event: 'document.updated',
      actor: { type: 'system', source: 'sat' },
      metadata: {
        change: 'canceled',
        canceled_at: record.canceledAt,
        fiscal_reference: record.uuid,
        read_from: input.readFrom,
        payables_canceled: open.map((payable) => payable.id),
        payments_canceling: pending.map((payment) => payment.id),
        // Not reversed: their money left, or is leaving. Someone has to ask the supplier for it.
        payments_at_gateway: atGateway.map((payment) => ({
          payment: payment.id,
          status: payment.status === 'pending' ? 'in_batch' : payment.status,
        })),
      },
    });
    return { newly: true, pending: pending.map((payment) => payment.id) };
  });
}

/** Cancels each pending payment through its process; one its process refuses is reported, and logged once. */
async function cancelPendingPayments(
  deps: CancellationDeps,
  input: ApplyMetadataInput,
  documentId: string,
  record: SatMetadataRecord,
  pending: string[],
  report: MetadataReport,
): Promise<void> {
  const reason = satCancellationReason(record.uuid, record.canceledAt!);
  for (const paymentId of pending) {
    const answer = await deps.processes.cancelPayment(paymentId, reason);
    if (answer.canceled) {
      report.paymentsCanceled.push(paymentId);
      continue;
    }
    const em = companyEm(deps.orm, input.companyId);
    const payment = await em.findOne(Payment, { id: paymentId });
    // Cancelled meanwhile (another run applying the same metadata): done.
    if (payment?.status === 'failed' && payment.paymentGateway?.['status'] === 'canceled') {
      report.paymentsCanceled.push(paymentId);
      continue;
    }
    report.paymentsNotCanceled.push({ payment: paymentId, code: answer.code, message: answer.message });
    const logged = await em.count(ActivityLog, {
      document: documentId,
      event: 'document.updated',
      metadata: { change: 'payment_not_canceled', payment: paymentId },
    });
    if (logged) continue;
    em.create(ActivityLog, {
      company: input.companyId,
      document: documentId,
      event: 'document.updated',
      actor: { type: 'system', source: 'sat' },
      metadata: {
        change: 'payment_not_canceled',
        payment: paymentId,
        code: answer.code,
        message: answer.message,
        fiscal_reference: record.uuid,
      },
    });
    await em.flush();
  }
}
