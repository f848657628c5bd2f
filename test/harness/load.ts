import { randomUUID } from 'node:crypto';
import { addSupplierAccount } from './company.ts';
import type { Integrator } from './integrator.ts';
import type { InvoiceFile } from './invoices.ts';
import type { Operator } from './operator.ts';
import type { Random } from './random.ts';

export interface LoadPlan {
  /** Invoices imported, each followed through its whole flow. */
  documents: number;
  /** Integrators deciding steps at once. */
  lanes: number;
  /** Files per `documents import` run; each imported batch is followed by a reception-events batch. */
  importBatch: number;
  /** Imports are spread over this long, so that the load outlasts the fault schedule. */
  spreadMs: number;
  /** Share of approval steps resolved through POST /documents/{ref}/approve rather than through the step. */
  approveShare: number;
  /** A document whose flow has not ended by then is left for the checks, which will call it stuck. */
  documentTimeoutMs: number;
  /** Once a flow ends, notes linking these files (public URLs) are added to the document. */
  noteLinks?: readonly string[];
  /** Once a flow ends, the operator registers the supplier's bank account (once) and the integrator pays the document. */
  pay?: boolean;
}

export const OPERATION_KINDS = ['import', 'step', 'approve', 'events', 'account', 'note', 'pay', 'read'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** The reception events every imported batch asks for: DIAN's receipt of the invoice, then of the goods. */
export const EVENT_TYPES = ['030', '032'] as const;

/** What the service accepted (a 2xx, or a CLI run that exited 0): all of it must be in the read state afterwards. */
export interface Ledger {
  documents: Map<string, InvoiceFile>;
  /** Step reference → the decision the API answered as completed. */
  stepDecisions: Map<string, { document: string; action: string; values: string[] }>;
  approvals: Set<string>;
  eventBatches: string[][];
  accounted: Set<string>;
  /** Documents whose flow the integrator saw end, with how long it took from its import. */
  finished: Map<string, number>;
  /** Document → the links of the notes added to it. */
  notes: Map<string, string[]>;
  /** Payment → the document it pays. */
  payments: Map<string, string>;
  /** Payments seen waiting for a validated bank account before one was registered: they must end processed too. */
  waitedForAccount: Set<string>;
  accepted: Record<OperationKind, number>;
  /** Requests the service refused unexpectedly or never answered in time: each one failed a client. */
  failures: string[];
  /**
   * Steps and vouchers whose request was answered "already done" (a step no longer pending, a voucher already posted)
   * after an earlier attempt, whose answer was lost, had done it: checked like the accepted ones.
   */
  doneByEarlierAttempt: Set<string>;
}

/** An empty ledger; the load fills it in as the service accepts requests. */
export function emptyLedger(): Ledger {
  return {
    documents: new Map(),
    stepDecisions: new Map(),
    approvals: new Set(),
    eventBatches: [],
    accounted: new Set(),
    finished: new Map(),
    notes: new Map(),
    payments: new Map(),
    waitedForAccount: new Set(),
    accepted: Object.fromEntries(OPERATION_KINDS.map((kind) => [kind, 0])) as Record<OperationKind, number>,
    failures: [],
    doneByEarlierAttempt: new Set(),
  };
}

/** An imported document an integrator follows through its flow. */
interface Followed {
  reference: string;
  approveDirectly: boolean;
  importedAt: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const POLL_MS = 400;
/** The flow's steps the load always decides through the API (the approval may go through POST /approve). */
const FLOW_DECIDED = ['document.classification', 'document.tagging'];

/**
 * Drives the service as an operator and integrators would: imports invoices in batches with the CLI, asks for their
 * reception events, and follows each document's flow (approval, classification, tagging), approving some through
 * POST /approve; once approved, the document is accounted by itself (its lines' account decided through the agent's
 * `book_account` step), and its `document.accounted` webhook, registered by the ERP, closes the flow.
 */
export async function runLoad(input: {
  plan: LoadPlan;
  invoices: InvoiceFile[];
  company: string;
  member: string;
  api: Integrator;
  ops: Operator;
  random: Random;
  ledger: Ledger;
}): Promise<Ledger> {
  const { plan, api, ops, random, ledger } = input;
  const waiting: Followed[] = [];
  let importing = true;
  let arrived = Promise.withResolvers<void>();
  const eventRequests: Promise<void>[] = [];

  // A request given up on (no final answer in time) fails its client: recorded, and the load goes on.
  const failed = (error: Error): undefined => {
    ledger.failures.push(error.message);
    return undefined;
  };

  const importAll = async () => {
    const batches = Array.from({ length: Math.ceil(input.invoices.length / plan.importBatch) }, (_, index) =>
      input.invoices.slice(index * plan.importBatch, (index + 1) * plan.importBatch),
    );
    const every = plan.spreadMs / batches.length;
    const startedAt = Date.now();
    for (const [index, batch] of batches.entries()) {
      await pause(Math.max(0, startedAt + index * every - Date.now()));
      const answer = await ops(
        'documents',
        'import',
        '--company',
        input.company,
        ...batch.map((invoice) => invoice.path),
      ).catch(failed);
      if (answer?.code !== 0) {
        if (answer) ledger.failures.push(`documents import refused: ${JSON.stringify(answer.error)}`);
        continue;
      }
      ledger.accepted.import += 1;
      for (const imported of answer.stdout.documents as { reference: string; fiscal_reference: string }[]) {
        const invoice = batch.find((file) => file.cufe === imported.fiscal_reference)!;
        ledger.documents.set(imported.reference, invoice);
        waiting.push({
          reference: imported.reference,
          approveDirectly: random.next() < plan.approveShare,
          importedAt: Date.now(),
        });
      }
      arrived.resolve();
      arrived = Promise.withResolvers<void>();
      eventRequests.push(askForReceptionEvents(batch.map((invoice) => invoice.cufe)).catch(failed));
    }
    importing = false;
    arrived.resolve();
  };

  const askForReceptionEvents = async (cufes: string[]) => {
    const answer = await api('POST', '/public/api/v1/events/batch', {
      body: { documents_fiscal_reference: cufes, events_type: EVENT_TYPES },
    });
    if (answer.status !== 200) throw new Error(`events batch refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    ledger.accepted.events += 1;
    ledger.eventBatches.push(cufes);
  };

  const follow = async (document: Followed) => {
    const deadline = Date.now() + plan.documentTimeoutMs;
    // What the load decided of the flow's steps (the approval may be taken by POST /approve instead).
    const decided = new Set<string>();
    while (Date.now() < deadline) {
      const current = await api('GET', `/public/api/v1/workflow-steps/current?entity_reference=${document.reference}`);
      ledger.accepted.read += 1;
      // The flow has ended once its steps are decided and the ERP registered the voucher of the approved document,
      // accounted by itself (between two steps, no step is pending either).
      if (
        current.status === 204 &&
        FLOW_DECIDED.every((action) => decided.has(action)) &&
        (await registered(document.reference))
      ) {
        ledger.accounted.add(document.reference);
        ledger.finished.set(document.reference, Date.now() - document.importedAt);
        for (const link of plan.noteLinks ?? []) await note(document.reference, link);
        if (plan.pay) await pay(document.reference);
        return;
      }
      const step = current.status === 200 ? current.body.step : null;
      if (step?.actionable) {
        // The approval, the flow's own steps, and the accounting agent's question on the account of the lines.
        if (step.action === 'document.book_account') ledger.accepted.account += 1;
        await decide(document, step);
        decided.add(step.action);
      } else if (current.status !== 200 && current.status !== 204) {
        throw new Error(`GET current step of ${document.reference}: ${current.status} ${JSON.stringify(current.body)}`);
      }
      // A client polls: nothing announces the next step.
      await pause(POLL_MS);
    }
  };

  const registered = async (reference: string) => {
    const answer = await api('GET', `/public/api/v1/documents/${reference}`);
    ledger.accepted.read += 1;
    return answer.status === 200 && answer.body?.accounting?.registration_state === 'registered';
  };

  const note = async (reference: string, link: string) => {
    const answer = await api('POST', `/public/api/v1/documents/${reference}/notes`, {
      body: { file_path: link, comment: 'Soporte' },
    });
    if (answer.status !== 201) throw new Error(`note on ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
    ledger.accepted.note += 1;
    ledger.notes.set(reference, [...(ledger.notes.get(reference) ?? []), link]);
  };

  // The supplier of every invoice is the same, and has no bank account at first. The first document is paid before
  // one is registered: that payment must wait, pending and saying why, until the account's validation lets it go
  // (through whatever faults come meanwhile). The others are paid once the account is registered.
  let accountRegistered: Promise<void> | undefined;

  const createPayment = async (
    reference: string,
    payable: { reference: string; balance: number; amount_currency: string },
  ) => {
    const answer = await api('POST', '/public/api/v1/payments', {
      body: { payable_reference: payable.reference, amount: payable.balance, amount_currency: payable.amount_currency },
    });
    if (answer.status !== 201) throw new Error(`pay ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
    ledger.accepted.pay += 1;
    ledger.payments.set(answer.body.reference, reference);
    return answer.body.reference as string;
  };

  /** Until the payment's detail says it waits for a validated account: the state a fault must not lose. */
  const waitingForAccount = async (payment: string) => {
    const deadline = Date.now() + plan.documentTimeoutMs;
    while (Date.now() < deadline) {
      const answer = await api('GET', `/public/api/v1/payments/${payment}`);
      ledger.accepted.read += 1;
      if (answer.body?.payment_gateway?.status === 'waiting_for_validated_account') {
        ledger.waitedForAccount.add(payment);
        return;
      }
      if (answer.body?.status && answer.body.status !== 'pending')
        throw new Error(`payment ${payment} went ${answer.body.status} without a bank account`);
      await pause(POLL_MS);
    }
    throw new Error(`payment ${payment} never said it waits for a validated account`);
  };

  const pay = async (reference: string) => {
    const document = await api('GET', `/public/api/v1/documents/${reference}?fields=payables,beneficiaries`);
    const payable = document.body.payables[0];
    if (accountRegistered) {
      await accountRegistered;
      await createPayment(reference, payable);
      return;
    }
    accountRegistered = (async () => {
      await waitingForAccount(await createPayment(reference, payable));
      await addSupplierAccount(api, ops, document.body.beneficiary.reference);
    })();
    await accountRegistered;
  };

  const decide = async (
    document: Followed,
    step: { reference: string; action: string; decision: { kind: string; options: { value: string }[] } },
  ) => {
    if (step.decision.kind === 'approval' && document.approveDirectly) {
      // Every second direct approval names the document by its fiscal reference (CUFE), as the spec allows.
      const named =
        ledger.approvals.size % 2 === 0 ? document.reference : ledger.documents.get(document.reference)!.cufe;
      const answer = await api('POST', `/public/api/v1/documents/${named}/approve`, {
        body: { erp_document_reference: `ERP-${document.reference.slice(0, 8)}` },
      });
      if (answer.status !== 200)
        throw new Error(`approve ${document.reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
      ledger.accepted.approve += 1;
      ledger.approvals.add(document.reference);
      return;
    }
    const values = step.decision.kind === 'approval' ? ['approve'] : [step.decision.options[0]!.value];
    const body = { decision: step.decision.kind === 'tagging' ? values : values[0], acting_user_email: input.member };
    const answer = await api('POST', `/public/api/v1/workflow-steps/${step.reference}/complete`, {
      body,
      idempotencyKey: randomUUID(),
    });
    if (answer.status === 200) {
      ledger.accepted.step += 1;
      ledger.stepDecisions.set(step.reference, { document: document.reference, action: step.action, values });
    } else if (answer.status === 409 && answer.body?.code === 'step_not_pending') {
      // The read state lags a decision being written (its worker died mid-write): poll again until it moves on.
      ledger.doneByEarlierAttempt.add(step.reference);
    } else {
      throw new Error(
        `complete ${step.action} of ${document.reference}: ${answer.status} ${JSON.stringify(answer.body)}`,
      );
    }
  };

  const lane = async () => {
    for (;;) {
      const next = waiting.shift();
      if (next) {
        await follow(next).catch(failed);
        continue;
      }
      if (!importing) return;
      await arrived.promise;
    }
  };

  await Promise.all([importAll(), ...Array.from({ length: plan.lanes }, lane)]);
  await Promise.all(eventRequests);
  return ledger;
}
