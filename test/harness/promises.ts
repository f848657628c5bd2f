import type { Client } from '@temporalio/client';
import { EVENT_TYPES, type Ledger } from './load.ts';
import type { Stack } from './stack.ts';

/** The flow every document of the run goes through; its last step closes when the ERP registers the voucher. */
export const FLOW_ACTIONS = [
  'document.approval',
  'document.classification',
  'document.tagging',
  'document.accounting',
] as const;

/** What broke a promise of the service, one line per case. Empty lists mean every promise held. */
export interface Findings {
  /** Accepted (2xx, or exit 0) but not in the read state; events that never reached the receiver. */
  lost: string[];
  /** Flows that did not end, events still processing, workflows still running or ended badly, keys left in progress. */
  stuck: string[];
  /** Done twice: a step completed twice, an event recorded twice, a voucher registered twice. */
  doubled: string[];
}

export interface Deliveries {
  created: number;
  accounted: number;
  /** Webhook requests the receiver got (retries included). */
  requests: number;
  /** Requests for an event the receiver had already processed: at-least-once delivery, deduped by the receiver. */
  duplicates: number;
}

export interface Checked {
  findings: Findings;
  deliveries: Deliveries;
  /** Reception events by final status (accepted, rejected, failed); `processing` ones are stuck. */
  receptionEvents: Record<string, number>;
}

export const noFindings = (findings: Findings) =>
  findings.lost.length + findings.stuck.length + findings.doubled.length === 0;

/** Checks, once, every promise of the service against what the load was told was accepted. */
export async function checkPromises(stack: Stack, temporal: Client, company: string, ledger: Ledger): Promise<Checked> {
  const receiver = await stack.receiver.state();
  const findings: Findings = { lost: [], stuck: [], doubled: [] };
  const references = [...ledger.documents.keys()];

  const documents = await stack.query<{ id: string; fiscal_reference: string; approval_status: string }>(
    `select id, fiscal_reference, approval_status from documents where company_id = $1`,
    [company],
  );
  const byId = new Map(documents.map((row) => [row.id, row]));
  for (const [reference, invoice] of ledger.documents) {
    if (byId.get(reference)?.fiscal_reference !== invoice.cufe)
      findings.lost.push(`import of ${invoice.documentNumber}: document ${reference} is not in the read state`);
  }
  if (documents.length !== ledger.documents.size)
    findings.doubled.push(`${documents.length} documents for ${ledger.documents.size} imported invoices`);
  for (const reference of ledger.approvals) {
    if (byId.get(reference)?.approval_status !== 'approved')
      findings.lost.push(`approve ${reference}: approval_status is ${byId.get(reference)?.approval_status}`);
  }

  const notes = await stack.query<{ document_id: string; file_path: string; times: number }>(
    `select document_id, file_path, count(*)::int as times from document_notes where company_id = $1 and file_path is not null group by 1, 2`,
    [company],
  );
  for (const [reference, links] of ledger.notes) {
    for (const link of links) {
      const found = notes.find((row) => row.document_id === reference && row.file_path === link);
      if (!found) findings.lost.push(`note ${link} on ${reference}: not in the read state`);
      else if (found.times > 1) findings.doubled.push(`note ${link} on ${reference}: ${found.times} times`);
    }
  }
  const payments = await stack.query<{ id: string; document_id: string; status: string }>(
    `select p.id, pa.document_id, p.status::text from payments p join payables pa on pa.id = p.payable_id where p.company_id = $1`,
    [company],
  );
  for (const [reference, document] of ledger.payments) {
    const payment = payments.find((row) => row.id === reference);
    if (!payment) findings.lost.push(`payment ${reference} of ${document}: not in the read state`);
    else if (payment.status !== 'processed')
      findings.stuck.push(`payment ${reference} of ${document}: ${payment.status}`);
  }
  for (const document of new Set(ledger.payments.values())) {
    const count = payments.filter((row) => row.document_id === document).length;
    if (count > 1) findings.doubled.push(`document ${document} paid ${count} times`);
  }

  const steps = await stack.query<{
    id: string;
    document_id: string;
    action: string;
    status: string;
    values: string[] | null;
  }>(`select id, document_id, action, status, result->'values' as values from workflow_steps where company_id = $1`, [
    company,
  ]);
  const stepById = new Map(steps.map((step) => [step.id, step]));
  for (const [reference, decided] of ledger.stepDecisions) {
    const step = stepById.get(reference);
    if (step?.status !== 'completed' || JSON.stringify(step.values) !== JSON.stringify(decided.values)) {
      findings.lost.push(
        `complete ${decided.action} of ${decided.document}: step ${reference} is ${step?.status ?? 'missing'} with ${JSON.stringify(step?.values)}`,
      );
    }
  }
  for (const reference of references) {
    const all = steps.filter((step) => step.document_id === reference);
    // The accounting agent's question (the account of the fixture's lines, which nothing maps) is asked once.
    const own = all.filter((step) => step.action !== 'document.book_account');
    const questions = all.length - own.length;
    const completed = new Set(all.filter((step) => step.status === 'completed').map((step) => step.action));
    const open = [...FLOW_ACTIONS, 'document.book_account'].filter((action) => !completed.has(action));
    if (open.length) findings.stuck.push(`document ${reference}: flow not ended, ${open.join(', ')} not completed`);
    if (own.length > FLOW_ACTIONS.length)
      findings.doubled.push(`document ${reference}: ${own.length} steps for a flow of ${FLOW_ACTIONS.length}`);
    if (questions > 1)
      findings.doubled.push(`document ${reference}: asked for the account of its lines ${questions} times`);
  }
  const completions = await stack.query<{ step: string; times: number }>(
    `select metadata->>'step' as step, count(*)::int as times from activity_logs where company_id = $1 and metadata->>'change' = 'step_completed' group by 1 having count(*) > 1`,
    [company],
  );
  for (const { step, times } of completions) findings.doubled.push(`step ${step} completed ${times} times`);
  const approvedLogs = await stack.query<{ document_id: string; times: number }>(
    `select document_id, count(*)::int as times from activity_logs where company_id = $1 and event = 'document.approved' group by 1 having count(*) > 1`,
    [company],
  );
  for (const { document_id, times } of approvedLogs)
    findings.doubled.push(`document ${document_id} approved ${times} times`);

  const events = await stack.query<{ cufe: string; event_type: string; status: string }>(
    `select cufe, event_type, status from reception_events where company_id = $1`,
    [company],
  );
  const receptionEvents: Record<string, number> = {};
  for (const event of events) receptionEvents[event.status] = (receptionEvents[event.status] ?? 0) + 1;
  const eventKey = new Set(events.map((event) => `${event.cufe}/${event.event_type}`));
  for (const cufe of ledger.eventBatches.flat()) {
    for (const type of EVENT_TYPES)
      if (!eventKey.has(`${cufe}/${type}`))
        findings.lost.push(`events batch: event ${type} of ${cufe} is not in the read state`);
  }
  for (const event of events.filter((candidate) => candidate.status === 'processing'))
    findings.stuck.push(`reception event ${event.event_type} of ${event.cufe} still processing`);

  const entries = await stack.query<{ document_id: string; registration_state: string }>(
    `select document_id, registration_state from accounting_entries where company_id = $1 and status = 'posted'`,
    [company],
  );
  const entryOf = new Map(entries.map((entry) => [entry.document_id, entry]));
  for (const reference of ledger.accounted) {
    if (!entryOf.has(reference)) findings.lost.push(`documents account ${reference}: no posted voucher`);
  }
  for (const reference of references) {
    const state = entryOf.get(reference)?.registration_state;
    if (state !== undefined && state !== 'registered')
      findings.stuck.push(`voucher of ${reference}: registration ${state}`);
  }

  const deliveries = await stack.query<{ event: string; subject: string; status: string; times: number }>(
    `select event, payload->'data'->>'reference' as subject, min(status::text) as status, count(*)::int as times from webhook_deliveries where company_id = $1 group by 1, 2`,
    [company],
  );
  const received = receiver.received.filter((request) => request.signatureValid && request.answer?.status === 200);
  const reached = new Set(
    received.map(
      (request) => `${request.event}/${(request.json as { data?: { reference?: string } }).data?.reference}`,
    ),
  );
  for (const reference of references) {
    const expected = ['document.created', ...(entryOf.has(reference) ? ['document.accounted'] : [])];
    for (const event of expected) {
      const recorded = deliveries.find((delivery) => delivery.event === event && delivery.subject === reference);
      if (!recorded) findings.lost.push(`${event} of ${reference}: never recorded`);
      else if (recorded.times > 1) findings.doubled.push(`${event} of ${reference}: recorded ${recorded.times} times`);
      else if (recorded.status !== 'delivered')
        findings.stuck.push(`${event} of ${reference}: delivery ${recorded.status}`);
      if (!reached.has(`${event}/${reference}`))
        findings.lost.push(`${event} of ${reference}: never reached the receiver`);
    }
  }
  const vouchers = [...receiver.registered.values()];
  const ids = new Set(vouchers.map((voucher) => voucher.erp_invoice_id));
  if (ids.size !== vouchers.length) findings.doubled.push('a voucher registered under two ERP ids');

  // The workflow must agree with the read state: a flow over in PostgreSQL but still waiting in Temporal is stuck too.
  for (const reference of references) {
    const waiting = await temporal.workflow
      .getHandle(`document/${reference}`)
      .query<{ action: string } | null>('currentStep')
      .then(
        (step) => step?.action ?? null,
        (error: Error) => `no answer (${error.message})`,
      );
    if (waiting !== null) findings.stuck.push(`workflow document/${reference} still waits: ${waiting}`);
  }
  for (const type of [
    'webhookDelivery',
    'receptionEvent',
    'receptionEventBatch',
    'fiscalSync',
    'paymentProcess',
    'bankAccountValidation',
  ]) {
    for await (const execution of temporal.workflow.list({
      query: `WorkflowType = '${type}' AND ExecutionStatus = 'Running'`,
    }))
      findings.stuck.push(`workflow ${execution.workflowId} still running`);
  }
  for await (const execution of temporal.workflow.list({
    query: `ExecutionStatus = 'Failed' OR ExecutionStatus = 'TimedOut' OR ExecutionStatus = 'Terminated'`,
  })) {
    findings.stuck.push(`workflow ${execution.workflowId} ended ${execution.status.name}`);
  }
  const keys = await stack.query<{ key: string }>(
    `select key from idempotency_keys where company_id = $1 and status = 'in_progress'`,
    [company],
  );
  for (const { key } of keys) findings.stuck.push(`Idempotency-Key ${key} left in progress`);

  const created = received.filter((request) => request.event === 'document.created');
  const accountedTimes = vouchers.reduce((sum, voucher) => sum + voucher.times, 0);
  return {
    findings,
    receptionEvents,
    deliveries: {
      created: new Set(created.map((request) => request.deliveryId)).size,
      accounted: receiver.registered.size,
      requests: receiver.received.length,
      duplicates: receiver.duplicates + accountedTimes - receiver.registered.size,
    },
  };
}
