import type { RegistrationState } from '../accounting/accounting-entry.entity.ts';
import type { Actor } from './activity-log.entity.ts';
import type { ApprovalStatus, Document, DocumentPaymentStatus, DocumentType } from './document.entity.ts';
import type { Currency } from '../money.ts';
import { UUID_PATTERN } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import type { PayableOfDocument } from '../payments/payable-schedule.ts';
import { isoTimestamp as timestamp, runStatement } from '../prepared.ts';
import type { StepActor, StepAssignee, StepResult } from '../workflow-steps/workflow-step.entity.ts';
import type { FlowDefinition } from '../workflow-steps/workflow-flow.entity.ts';
import { STEP_RECORD_SQL, type StepRecord } from '../workflow-steps/step-record.ts';

// Every outcome of the document workflow (a step decision, by a person or the agent, and an approval) is written as
// two statements: one reads what the rules need (the document, the step, what exists already), the rules run in
// TypeScript (an approval reads the supplier's payment term for its payables), and one writes everything they decided. The write locks the document first and applies only to the row version the
// read saw: every write of an approval updates that row, so a write whose read is stale (an attempt that timed out
// and wrote meanwhile, say) writes nothing, and is planned again from a fresh read. Both bypass the ORM's tenant
// filter: every table is constrained by the company as well as by its id.

/** The document as the rules of a decision or an approval read it, with its step when one was asked for. */
export interface LifecycleState {
  /** The document row's version: the write applies only while it is current. */
  version: string;
  document: Pick<
    Document,
    | 'type'
    | 'amountCents'
    | 'prepaidCents'
    | 'currency'
    | 'documentNumber'
    | 'country'
    | 'issueDate'
    | 'expirationDate'
    | 'createdAt'
    | 'approvalStatus'
    | 'paymentStatus'
    | 'isCanceled'
  > & {
    approvalErpReference: string | null;
    fiscalMetadata: { timeZone?: unknown };
    beneficiary: { identifierNumber: string; paymentTerms: number | null } | null;
  };
  hasPayables: boolean;
  step: StepRecord | null;
  /** The payments of the document's payables, read for a tagging step only. */
  paymentIds: string[];
}

interface StateRow {
  version: string;
  type: Document['type'];
  amount_cents: string;
  prepaid_cents: string | null;
  currency: Document['currency'];
  document_number: string;
  country: Document['country'];
  time_zone: unknown;
  issue_date: string | null;
  expiration_date: string | null;
  created_at: string;
  approval_status: ApprovalStatus;
  payment_status: DocumentPaymentStatus;
  approval_erp_reference: string | null;
  is_canceled: boolean;
  identifier_number: string | null;
  payment_terms: number | null;
  has_payables: boolean;
  step: StepRecord | null;
  payment_ids: string[] | null;
}

const date = (value: string | null) => (value === null ? null : new Date(value));

/** Reads the document (null when the company has no such document) and, with `stepId`, that step of it. */
export async function readLifecycleState(
  em: EntityManager,
  ids: { companyId: string; documentId: string; stepId: string | null },
): Promise<LifecycleState | null> {
  const [row] = await runStatement<StateRow>(
    em,
    `select d."xmin"::text as "version", d."type", d."amount_cents"::text as "amount_cents",
       d."prepaid_cents"::text as "prepaid_cents", d."currency",
       d."document_number", d."country", d."fiscal_metadata" -> 'timeZone' as "time_zone",
       ${timestamp('d."issue_date"')} as "issue_date", ${timestamp('d."expiration_date"')} as "expiration_date",
       ${timestamp('d."created_at"')} as "created_at", d."approval_status", d."payment_status", d."approval_erp_reference",
       d."is_canceled", b."identifier_number", b."payment_terms",
       exists (select from "payables" as p where p."company_id" = d."company_id" and p."document_id" = d."id") as "has_payables",
       case when s."id" is null then null else ${STEP_RECORD_SQL} end as "step",
       case when s."kind" = 'tagging' then (
         select coalesce(jsonb_agg(m."id"), '[]') from "payments" as m
         join "payables" as p on p."id" = m."payable_id" and p."company_id" = m."company_id"
         where m."company_id" = d."company_id" and p."document_id" = d."id"
       ) end as "payment_ids"
     from "documents" as d
     left join "beneficiaries" as b on b."id" = d."beneficiary_id" and b."company_id" = d."company_id"
     left join "workflow_steps" as s on s."id" = :stepId and s."document_id" = d."id" and s."company_id" = d."company_id"
     where d."id" = :documentId and d."company_id" = :companyId`,
    { companyId: ids.companyId, documentId: ids.documentId, stepId: ids.stepId },
  );
  if (!row) return null;
  return {
    version: row.version,
    document: {
      type: row.type,
      amountCents: BigInt(row.amount_cents),
      prepaidCents: row.prepaid_cents === null ? null : BigInt(row.prepaid_cents),
      currency: row.currency,
      documentNumber: row.document_number,
      country: row.country,
      fiscalMetadata: { timeZone: row.time_zone ?? undefined },
      issueDate: date(row.issue_date),
      expirationDate: date(row.expiration_date),
      createdAt: new Date(row.created_at),
      approvalStatus: row.approval_status,
      paymentStatus: row.payment_status,
      approvalErpReference: row.approval_erp_reference,
      isCanceled: row.is_canceled,
      beneficiary:
        row.identifier_number === null
          ? null
          : { identifierNumber: row.identifier_number, paymentTerms: row.payment_terms },
    },
    hasPayables: row.has_payables,
    step: row.step,
    paymentIds: row.payment_ids ?? [],
  };
}

/** Where a document's flow stands, as its lifecycle reads it when a run starts. */
export interface FlowPosition {
  approvalStatus: ApprovalStatus;
  /** The company's flow; null when it has none. */
  flow: FlowDefinition | null;
  /** The document's steps, by position. */
  steps: StepRecord[];
  accountingRegistered: boolean;
  /** Where the document's posted voucher stands; null when it has none. */
  registrationState: RegistrationState | null;
}

/** The document's approval status, its company's flow, its steps and whether its ERP registered it: one statement. */
export async function readFlowPosition(
  em: EntityManager,
  ids: { companyId: string; documentId: string },
): Promise<FlowPosition | null> {
  const [row] = await runStatement<FlowPosition>(
    em,
    `select d."approval_status" as "approvalStatus",
       (select f."definition" from "workflow_flows" as f where f."company_id" = d."company_id") as "flow",
       coalesce((
         select json_agg(${STEP_RECORD_SQL} order by s."position")
         from "workflow_steps" as s where s."company_id" = d."company_id" and s."document_id" = d."id"
       ), '[]') as "steps",
       coalesce((
         select e."registered" from "erp_documents" as e
         where e."company_id" = d."company_id" and e."document_id" = d."id" limit 1
       ), false) as "accountingRegistered",
       (select a."registration_state" from "accounting_entries" as a
         where a."company_id" = d."company_id" and a."document_id" = d."id" and a."status" = 'posted' limit 1
       ) as "registrationState"
     from "documents" as d
     where d."id" = :documentId and d."company_id" = :companyId`,
    ids,
  );
  return row ?? null;
}

/** One entry of the document's log, as a write adds it. */
export interface LogRow {
  id: string;
  event: string;
  actor: Actor;
  metadata: Record<string, unknown>;
}

/** What a decision or an approval writes, as the rules decided it from a read. */
export interface LifecycleWrite {
  companyId: string;
  documentId: string;
  /** The document row version the rules read: nothing is written unless it is still current. */
  version: string;
  /** The time of the write: the step's completion, the logs, new rows, the document's update. */
  at: Date;
  /** The step decided; it must still be pending with these assignees. */
  step: {
    id: string;
    expectedAssignees: StepAssignee[];
    assignees: StepAssignee[];
    /** Completed by this decision, with what it decided; absent: still pending (an assignee acted). */
    completion: { result: StepResult; actedBy: StepActor; comment?: string | null } | null;
  } | null;
  /** What an approval or a rejection sets on the document; the row is updated even when nothing changes. */
  document: {
    approvalStatus: ApprovalStatus;
    /** Kept when null. */
    approvalErpReference: string | null;
    /** Sets `approved_at` when it has none. */
    approved: boolean;
    /** `payment_status` becomes `paid`. */
    paid: boolean;
    /** The status, the ERP reference or the payment status changed: `updated_at` moves (so it does as `approved_at` is set). */
    changed: boolean;
  } | null;
  logs: LogRow[];
  /** Generated by an approval, for the document's beneficiary. */
  payables: (PayableOfDocument & { id: string })[];
  /** Tags put on the document and on its payments (already the company's). */
  tags: {
    documentTags: { id: string; tagId: string }[];
    paymentTags: { id: string; paymentId: string; tagId: string }[];
  };
}

/**
 * Writes a decision or an approval in one statement, the document's row locked first (then the step's): the step, the
 * log entries, the document, its payables and tags. False when it wrote nothing: the document or the step is no
 * longer as read.
 */
export async function writeLifecycle(em: EntityManager, write: LifecycleWrite): Promise<boolean> {
  const [row] = await runStatement<{ applied: boolean }>(
    em,
    `with "locked" as (
       select d."xmin"::text as "version" from "documents" as d
       where d."id" = :documentId and d."company_id" = :companyId for update
     ),
     "step_locked" as (
       select from "workflow_steps" as s
       where s."id" = cast(:stepId as uuid) and s."company_id" = :companyId and s."document_id" = :documentId
         and s."status" = 'pending' and s."assignees" = cast(:expectedAssignees as jsonb) and exists (select from "locked")
       for update
     ),
     "applied" as (
       select from "locked" where "version" = :version
         and (cast(:stepId as uuid) is null or exists (select from "step_locked"))
     ),
     "step" as (
       update "workflow_steps" set
         "assignees" = cast(:assignees as jsonb),
         "status" = case when :completes then 'completed'::step_status else "status" end,
         "completed_at" = case when :completes then cast(:at as timestamptz) else "completed_at" end,
         "result" = case when :completes then cast(:result as jsonb) else "result" end,
         "acted_by" = case when :completes then cast(:actedBy as jsonb) else "acted_by" end,
         "comment" = case when :setsComment then cast(:comment as text) else "comment" end
       where "id" = cast(:stepId as uuid) and "company_id" = :companyId and exists (select from "applied")
     ),
     "document" as (
       update "documents" set
         "approval_status" = cast(:approvalStatus as approval_status),
         "approval_erp_reference" = coalesce(cast(:approvalErpReference as varchar), "approval_erp_reference"),
         "approved_at" = case when :approved then coalesce("approved_at", cast(:at as timestamptz)) else "approved_at" end,
         "payment_status" = case when :paid then 'paid'::document_payment_status else "payment_status" end,
         "updated_at" = case when :changed or (:approved and "approved_at" is null) then cast(:at as timestamptz)
           else "updated_at" end
       where "id" = :documentId and "company_id" = :companyId and :updatesDocument and exists (select from "applied")
     ),
     "logs" as (
       insert into "activity_logs" ("id", "company_id", "document_id", "event", "actor", "metadata", "created_at")
       select l."id", :companyId, :documentId, l."event", l."actor", l."metadata", cast(:at as timestamptz)
       from jsonb_to_recordset(cast(:logs as jsonb)) as l("id" uuid, "event" varchar, "actor" jsonb, "metadata" jsonb)
       where exists (select from "applied")
     ),
     "payables" as (
       insert into "payables" ("id", "company_id", "document_id", "beneficiary_id", "type", "status", "amount_cents",
         "currency", "balance_cents", "issue_date", "expiration_date", "concept", "origin", "installment_number",
         "projects", "created_at", "updated_at")
       select p."id", :companyId, :documentId, d."beneficiary_id", p."type"::payable_type, p."status"::payable_status,
         p."amount_cents", p."currency"::currency, p."balance_cents", p."issue_date", p."expiration_date", p."concept",
         p."origin", p."installment_number", '[]', cast(:at as timestamptz), cast(:at as timestamptz)
       from jsonb_to_recordset(cast(:payables as jsonb)) as p("id" uuid, "type" text, "status" text,
         "amount_cents" bigint, "currency" text, "balance_cents" bigint, "issue_date" date, "expiration_date" date,
         "concept" text, "origin" varchar, "installment_number" int)
       join "documents" as d on d."id" = :documentId and d."company_id" = :companyId
       where exists (select from "applied")
     ),
     "document_tags" as (
       insert into "document_tags" ("id", "company_id", "document_id", "tag_id", "created_at")
       select t."id", :companyId, :documentId, t."tagId", cast(:at as timestamptz)
       from jsonb_to_recordset(cast(:documentTags as jsonb)) as t("id" uuid, "tagId" uuid)
       where exists (select from "applied")
       on conflict ("document_id", "tag_id") do nothing
     ),
     "payment_tags" as (
       insert into "payment_tags" ("id", "company_id", "payment_id", "tag_id", "created_at")
       select t."id", :companyId, t."paymentId", t."tagId", cast(:at as timestamptz)
       from jsonb_to_recordset(cast(:paymentTags as jsonb)) as t("id" uuid, "paymentId" uuid, "tagId" uuid)
       where exists (select from "applied")
       on conflict ("payment_id", "tag_id") do nothing
     )
     select exists (select from "applied") as "applied"`,
    {
      companyId: write.companyId,
      documentId: write.documentId,
      version: write.version,
      at: write.at,
      stepId: write.step?.id ?? null,
      expectedAssignees: JSON.stringify(write.step?.expectedAssignees ?? []),
      assignees: JSON.stringify(write.step?.assignees ?? []),
      completes: write.step?.completion != null,
      result: JSON.stringify(write.step?.completion?.result ?? null),
      actedBy: JSON.stringify(write.step?.completion?.actedBy ?? null),
      setsComment: write.step?.completion?.comment !== undefined,
      comment: write.step?.completion?.comment ?? null,
      updatesDocument: write.document !== null,
      approvalStatus: write.document?.approvalStatus ?? 'pending',
      approvalErpReference: write.document?.approvalErpReference ?? null,
      approved: write.document?.approved ?? false,
      paid: write.document?.paid ?? false,
      changed: write.document?.changed ?? false,
      logs: JSON.stringify(write.logs),
      payables: JSON.stringify(
        write.payables.map((payable) => ({
          id: payable.id,
          type: payable.type,
          status: payable.status,
          amount_cents: payable.amountCents.toString(),
          currency: payable.currency,
          balance_cents: payable.balanceCents.toString(),
          issue_date: payable.issueDate,
          expiration_date: payable.expirationDate,
          concept: payable.concept,
          origin: payable.origin,
          installment_number: payable.installmentNumber,
        })),
      ),
      documentTags: JSON.stringify(write.tags.documentTags),
      paymentTags: JSON.stringify(write.tags.paymentTags),
    },
  );
  return row?.applied ?? false;
}

/** The document an approval names, with what its workflow's start needs and whether a step of its flow is pending. */
export interface ApprovalSubject {
  id: string;
  type: DocumentType;
  supplierName: string | null;
  amountCents: bigint;
  currency: Currency;
  documentNumber: string;
  fiscalReference: string | null;
  approvalStatus: ApprovalStatus;
  /** A step is pending: the flow's run is waiting on it (running, unless it failed). */
  stepPending: boolean;
}

/**
 * The document of `POST /documents/{reference}/approve`, found by its id, else its fiscal reference (a CUFE or a SAT
 * fiscal UUID), in one statement; null when the company has none such.
 */
export async function approvalSubject(
  em: EntityManager,
  companyId: string,
  reference: string,
): Promise<ApprovalSubject | null> {
  const lower = reference.toLowerCase();
  const [row] = await runStatement<{
    id: string;
    type: DocumentType;
    supplier_name: string | null;
    amount_cents: string;
    currency: Currency;
    document_number: string;
    fiscal_reference: string | null;
    approval_status: ApprovalStatus;
    step_pending: boolean;
  }>(
    em,
    `select d."id", d."type", b."name" as "supplier_name", d."amount_cents"::text as "amount_cents", d."currency",
       d."document_number", d."fiscal_reference", d."approval_status",
       exists (
         select from "workflow_steps" as s
         where s."company_id" = d."company_id" and s."document_id" = d."id" and s."status" = 'pending'
       ) as "step_pending"
     from "documents" as d
     left join "beneficiaries" as b on b."id" = d."beneficiary_id" and b."company_id" = d."company_id"
     where d."company_id" = :companyId and (d."id" = cast(:id as uuid) or d."fiscal_reference" = :reference)
     order by d."id" = cast(:id as uuid) desc nulls last
     limit 1`,
    { companyId, id: UUID_PATTERN.test(lower) ? lower : null, reference: lower },
  );
  return row
    ? {
        id: row.id,
        type: row.type,
        supplierName: row.supplier_name,
        amountCents: BigInt(row.amount_cents),
        currency: row.currency,
        documentNumber: row.document_number,
        fiscalReference: row.fiscal_reference,
        approvalStatus: row.approval_status,
        stepPending: row.step_pending,
      }
    : null;
}
