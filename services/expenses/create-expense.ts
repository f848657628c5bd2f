// Expenses an operator or integrator records: a document of type `expense`, with its receipt, that goes through the
// same lifecycle as an imported document (flow, approval, payables, payments) and announces itself the same way.

import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { Company } from '../../db/companies/company.entity.ts';
import { Member } from '../../db/companies/member.entity.ts';
import { ActivityLog, type Actor } from '../../db/documents/activity-log.entity.ts';
import { Document, type ReimbursedPerson } from '../../db/documents/document.entity.ts';
import { LineItem } from '../../db/documents/line-item.entity.ts';
import { uuidv7 } from '../../db/ids.ts';
import { CURRENCIES, type Currency } from '../../db/money.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { COUNTRY_TIME_ZONES } from '../../fiscal/country-dates.ts';
import { isCalendarDate } from '../../fiscal/dates.ts';
import { zonedMidnight } from '../../fiscal/sync-window.ts';
import type { OutboundPolicy } from '../../platform/outbound-policy.ts';
import { Refusal } from '../../platform/refusal.ts';
import type { FileStorage } from '../../platform/storage/file-storage.ts';
import type { Processes } from '../processes.ts';
import { recordEvent } from '../webhooks/events.ts';
import { lifecycleSubjectOf, startDocumentProcesses } from '../documents/document-processes.ts';
import { documentCreatedPayload } from '../webhooks/payloads.ts';
import {
  checkReceipt,
  receiptContentType,
  receiptStorageKey,
  type CheckedReceipt,
  type ReceiptInput,
} from './receipt.ts';

/** Why an expense is refused; nothing is written. */
export type ExpenseRefusal =
  | 'invalid_amount'
  | 'unsupported_currency'
  | 'invalid_date'
  | 'beneficiary_required'
  | 'acting_user_not_found_in_company'
  | 'beneficiary_not_found'
  | 'beneficiary_deleted';

export class ExpenseRefused extends Refusal<ExpenseRefusal> {}

export interface NewExpense {
  companyId: string;
  /** The document's id: given so that a retried request finds what it wrote (null: a new one). */
  expenseId: string | null;
  /** Who is paid: an existing beneficiary... */
  beneficiaryId: string | null;
  /** ...or, without one, the person reimbursed (found by identifier, or made a beneficiary of type employee). */
  reimbursedPerson: ReimbursedPerson | null;
  amountCents: bigint;
  currency: string;
  /** YYYY-MM-DD, in the company's country. */
  issueDate: string;
  dueDate: string | null;
  spentOn: string | null;
  /** Null: one is given (`EXP-` and 12 hexadecimal characters of the reference). */
  documentNumber: string | null;
  category: string | null;
  costCenter: string | null;
  description: string | null;
  receipt: ReceiptInput | null;
  /** Who records it: `integration` (the API; a member's e-mail when a person acts) or `operator` (the CLI). */
  author: { source: 'integration' | 'operator'; name: string; actingUserEmail: string | null };
}

export interface ExpenseDeps {
  orm: Orm;
  storage: FileStorage;
  processes: Processes;
  /** The API's public URL, for links in the `document.created` payload. */
  publicUrl: string;
  /** Which receipt links are accepted. */
  outbound: OutboundPolicy;
}

/**
 * Records an expense: its document (type `expense`, one line), beneficiary, receipt and `document.created` log and
 * event in one transaction, after every check; then starts its `document/<reference>` lifecycle and webhook
 * deliveries, as an import does. Given an `expenseId` already written (a retry whose answer was lost), it writes
 * nothing and makes sure what follows was started.
 */
export async function createExpense(
  deps: ExpenseDeps,
  input: NewExpense,
): Promise<{ reference: string; created: boolean }> {
  const em = companyEm(deps.orm, input.companyId);
  const company = await em.findOneOrFail(Company, { id: input.companyId }, { filters: false });
  const earlier = input.expenseId ? await em.findOne(Document, { id: input.expenseId, type: 'expense' }) : null;
  let created = false;
  let document = earlier;
  if (!document) {
    const currency = checkFields(input);
    const receipt = input.receipt ? await checkReceipt(input.receipt, deps.outbound) : null;
    const write = () => writeExpense(deps, em.fork(), company, input, currency, receipt);
    // Two expenses of one person new to the company race to make them a beneficiary: the loser finds it made.
    document = await write().catch((error: unknown) => {
      if (error instanceof UniqueConstraintViolationException && input.reimbursedPerson && !input.beneficiaryId)
        return write();
      throw error;
    });
    created = true;
  }
  await startDocumentProcesses(deps.processes, em, lifecycleSubjectOf(document));
  return { reference: document.id, created };
}

/** The rules the API's schema also states, kept here for every caller (the CLI has no schema of its own). */
function checkFields(input: NewExpense): Currency {
  if (input.amountCents <= 0n) throw new ExpenseRefused('invalid_amount', 'The amount must be greater than 0');
  if (!(CURRENCIES as readonly string[]).includes(input.currency))
    throw new ExpenseRefused(
      'unsupported_currency',
      `The currency must be one of ${CURRENCIES.join(', ')}; ${JSON.stringify(input.currency)} is not`,
    );
  for (const [field, value] of [
    ['issue_date', input.issueDate],
    ['due_date', input.dueDate],
    ['spent_on', input.spentOn],
  ] as const) {
    if (value !== null && !isCalendarDate(value))
      throw new ExpenseRefused('invalid_date', `${field} must be a date as YYYY-MM-DD, not ${JSON.stringify(value)}`);
  }
  if (input.dueDate !== null && input.dueDate < input.issueDate)
    throw new ExpenseRefused('invalid_date', 'due_date must not be before issue_date');
  if (!input.beneficiaryId && !input.reimbursedPerson)
    throw new ExpenseRefused('beneficiary_required', 'Give the beneficiary paid, or the person reimbursed');
  return input.currency as Currency;
}

async function writeExpense(
  deps: ExpenseDeps,
  em: EntityManager,
  company: Company,
  input: NewExpense,
  currency: Currency,
  receipt: CheckedReceipt | null,
): Promise<Document> {
  return em.transactional(async (tx) => {
    const actor = await actorOf(tx, input.author);
    const beneficiary = await beneficiaryOf(tx, company, input);
    const id = input.expenseId ?? uuidv7();
    const zone = COUNTRY_TIME_ZONES[company.country];
    const storageKey = receipt?.kind === 'upload' ? receiptStorageKey(company.id, id, receipt.type) : null;
    const document = tx.create(Document, {
      id,
      company,
      beneficiary,
      country: company.country,
      documentNumber: input.documentNumber ?? `EXP-${id.replaceAll('-', '').slice(-12).toUpperCase()}`,
      type: 'expense',
      amountCents: input.amountCents,
      currency,
      subtotalCents: input.amountCents,
      taxTotalCents: 0n,
      withholdingTotalCents: 0n,
      issueDate: zonedMidnight(input.issueDate, zone),
      expirationDate: input.dueDate ? zonedMidnight(input.dueDate, zone) : null,
      fiscalReference: null,
      createdBy: { source: input.author.source, user: input.author.actingUserEmail },
      expenses: {
        origin: 'manual',
        category: input.category,
        costCenter: input.costCenter,
        description: input.description,
        spentOn: input.spentOn ?? input.issueDate,
        receiptUrl: receipt?.kind === 'link' ? receipt.url : null,
        receiptStorageKey: storageKey,
        receiptFileName: receipt?.fileName ?? null,
        reimbursedPerson: input.reimbursedPerson,
      },
    });
    // One line, so that the expense is accounted and shown like any document.
    tx.create(LineItem, {
      company,
      document,
      position: 1,
      name: input.description ?? input.category ?? 'Expense',
      quantity: '1',
      unitPriceCents: input.amountCents,
      currency,
      subtotalCents: input.amountCents,
      totalCents: input.amountCents,
      metadata: input.costCenter ? { costCenter: input.costCenter } : {},
    });
    tx.create(ActivityLog, {
      company,
      document,
      event: 'document.created',
      actor,
      metadata: { origin: 'manual' },
    });
    await recordEvent(tx, company, 'document.created', document.id, async () => {
      await tx.flush();
      return documentCreatedPayload(tx, document, deps.publicUrl);
    });
    // Stored before the commit: a rolled-back expense leaves at most an unreferenced file, never a missing receipt.
    if (receipt?.kind === 'upload' && storageKey)
      await deps.storage.put(storageKey, receipt.bytes, receiptContentType(receipt.type));
    return document;
  });
}

/** The log's actor: the member acting through the integration, the API key itself, or the operator. */
async function actorOf(em: EntityManager, author: NewExpense['author']): Promise<Actor> {
  if (!author.actingUserEmail) return { type: 'system', source: author.source, name: author.name };
  const member = await em.findOne(Member, { email: author.actingUserEmail.toLowerCase() });
  if (!member)
    throw new ExpenseRefused(
      'acting_user_not_found_in_company',
      `${author.actingUserEmail} is not a member of the company`,
    );
  return { type: 'user', name: member.name, email: member.email, source: author.source };
}

/** The beneficiary paid: the one named, else the reimbursed person, found by identifier or made an employee. */
async function beneficiaryOf(em: EntityManager, company: Company, input: NewExpense): Promise<Beneficiary> {
  if (input.beneficiaryId) {
    const named = await em.findOne(Beneficiary, { id: input.beneficiaryId.toLowerCase() });
    if (!named) throw new ExpenseRefused('beneficiary_not_found', 'No beneficiary of the company has this reference');
    if (named.isDeleted) throw new ExpenseRefused('beneficiary_deleted', 'The beneficiary has been deleted');
    return named;
  }
  const person = input.reimbursedPerson!;
  const known = await em.findOne(Beneficiary, {
    identifierType: person.identifierType,
    identifierNumber: person.identifierNumber,
  });
  if (known?.isDeleted)
    throw new ExpenseRefused(
      'beneficiary_deleted',
      `The beneficiary ${person.identifierType} ${person.identifierNumber} has been deleted`,
    );
  return (
    known ??
    em.create(Beneficiary, {
      company,
      name: person.name,
      type: 'employee',
      email: person.email,
      identifierType: person.identifierType,
      identifierNumber: person.identifierNumber,
    })
  );
}
