import { normalizedDescription, rulesOfOtherSuppliers } from '../../db/accounting/book-account-rules.ts';
import { Member } from '../../db/companies/member.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import { WorkflowFlow } from '../../db/workflow-steps/workflow-flow.entity.ts';
import {
  WorkflowStep,
  type DecisionOption,
  type StepRecommendation,
} from '../../db/workflow-steps/workflow-step.entity.ts';
import type { Decisions, UnplacedLine } from './journal-proposal.ts';
import type { Mismatch } from './order-crossing.ts';

// When the agent cannot tell, it asks a person through a step of the document's flow: a classification whose
// decision places the lines (`book_account`), or a review of the lines beyond their purchase order. Both are decided
// through POST /workflow-steps/{reference}/complete like any step; the agent reads the answer back from the step.

export const BOOK_ACCOUNT_ACTION = 'document.book_account';
export const ORDER_REVIEW_ACTION = 'document.purchase_order_review';
/** The review's two answers: a classification, not an approval, since it neither approves nor rejects the document. */
export const ORDER_REVIEW_OPTIONS: DecisionOption[] = [
  { value: 'approve', label: 'Account the lines beyond the order as direct purchases' },
  { value: 'reject', label: 'Hold the voucher' },
];

/** A step the lifecycle opens for the agent: what it asks, who may answer, and the agent's guesses. */
export interface AccountingQuestion {
  action: typeof BOOK_ACCOUNT_ACTION | typeof ORDER_REVIEW_ACTION;
  fieldName: 'book_account' | 'purchase_order_review';
  /** Shown as the step's `entity.concept`: what the person decides, in words. */
  concept: string;
  /** Fixed options (the review); the book-account question offers the active debit accounts instead. */
  options: DecisionOption[] | null;
  recommendations: StepRecommendation[];
  /** E-mails of the company members who may answer. */
  assignees: string[];
}

/** The newest answers people gave on this document's questions. */
export async function decisionsOf(em: EntityManager, documentId: string): Promise<Decisions> {
  const answered = await em.find(
    WorkflowStep,
    { document: documentId, action: { $in: [BOOK_ACCOUNT_ACTION, ORDER_REVIEW_ACTION] }, status: 'completed' },
    { orderBy: { completedAt: 'desc' }, limit: 10 },
  );
  const bookAccount = answered.find((step) => step.action === BOOK_ACCOUNT_ACTION && step.result?.values[0]);
  const review = answered.find((step) => step.action === ORDER_REVIEW_ACTION && step.result?.values[0]);
  return {
    bookAccount: bookAccount
      ? {
          accountExternalId: bookAccount.result!.values[0]!,
          stepId: bookAccount.id,
          by: bookAccount.actedBy?.email || bookAccount.actedBy?.name || '',
        }
      : null,
    orderReview: review ? { approved: review.result!.values[0] === 'approve', stepId: review.id } : null,
  };
}

/**
 * Who answers the agent's questions: the assignees of the company's approval steps, else of any step of its flow,
 * else every member of the company.
 */
async function answerers(em: EntityManager, companyId: string): Promise<string[]> {
  const flow = await em.findOne(WorkflowFlow, { company: companyId });
  const steps = flow?.definition.steps ?? [];
  const of = (kind: string | null) =>
    steps.filter((step) => kind === null || step.kind === kind).flatMap((step) => step.assignees ?? []);
  const named = of('approval').length > 0 ? of('approval') : of(null);
  if (named.length > 0) return [...new Set(named)];
  const members = await em.find(Member, {}, { fields: ['email'], orderBy: { email: 'asc' }, limit: 50 });
  return members.map((member) => member.email);
}

const amount = (line: UnplacedLine) => ((line.debitCents ?? line.creditCents ?? 0) / 100).toFixed(2);

/** The classification a person decides when no evidence places some lines, with the agent's best guesses. */
export async function bookAccountQuestion(
  em: EntityManager,
  document: Pick<Document, 'id' | 'company' | 'beneficiary' | 'documentNumber'>,
  unplaced: UnplacedLine[],
): Promise<AccountingQuestion> {
  const listed = unplaced.map((line) => `"${line.description}" (${amount(line)})`).join(', ');
  const lines = unplaced.length === 1 ? 'a line' : `${unplaced.length} lines`;
  const places = 'no ERP product, purchase order, earlier decision or vendor default places';
  const concept = `${document.documentNumber}: choose the book account of ${lines} ${places}: ${listed}`;
  return {
    action: BOOK_ACCOUNT_ACTION,
    fieldName: 'book_account',
    concept: concept.slice(0, 2000),
    options: null,
    recommendations: await guesses(em, document, unplaced),
    assignees: await answerers(em, document.company.id),
  };
}

/** How many guesses a question carries. */
const GUESSES = 3;

/**
 * What the company decided for the same products or descriptions at other suppliers: only a recommendation, never
 * a decision, since another supplier's line may be another thing. Only active debit accounts are offered.
 */
async function guesses(
  em: EntityManager,
  document: Pick<Document, 'company' | 'beneficiary'>,
  unplaced: UnplacedLine[],
): Promise<StepRecommendation[]> {
  const keys = unplaced.flatMap((line) => [
    ...(line.productCode ? [{ matchKind: 'product' as const, matchKey: line.productCode }] : []),
    { matchKind: 'description' as const, matchKey: normalizedDescription(line.description) },
  ]);
  const found = await rulesOfOtherSuppliers(em, {
    companyId: document.company.id,
    beneficiaryId: document.beneficiary?.id ?? null,
    keys,
    limit: 50,
  });
  const byAccount = new Map<string, { suppliers: number; keys: Set<string> }>();
  for (const rule of found) {
    const seen = byAccount.get(rule.bookAccountExternalId) ?? { suppliers: 0, keys: new Set<string>() };
    seen.suppliers += rule.suppliers;
    seen.keys.add(rule.matchKey);
    byAccount.set(rule.bookAccountExternalId, seen);
  }
  const ranked = [...byAccount.entries()].sort((a, b) => b[1].suppliers - a[1].suppliers).slice(0, GUESSES * 2);
  if (ranked.length === 0) return [];
  const debit = await em.find(
    ErpBookAccount,
    { externalId: { $in: ranked.map(([account]) => account) }, isActive: true, nature: 'debit' },
    { fields: ['externalId', 'name'] },
  );
  const names = new Map(debit.map((account) => [account.externalId, account.name]));
  return ranked
    .filter(([account]) => names.has(account))
    .slice(0, GUESSES)
    .map(([account, seen]) => ({
      value: account,
      confidenceLevel: seen.suppliers >= 3 ? 'medium' : 'low',
      rationale: `${names.get(account)} is where the company's people put "${[...seen.keys][0]}" for ${seen.suppliers} other supplier${seen.suppliers === 1 ? '' : 's'}`,
    }));
}

/** The review a person decides when lines do not match their purchase order. */
export async function orderReviewQuestion(
  em: EntityManager,
  document: Pick<Document, 'company' | 'documentNumber'>,
  mismatches: Mismatch[],
): Promise<AccountingQuestion> {
  return {
    action: ORDER_REVIEW_ACTION,
    fieldName: 'purchase_order_review',
    concept:
      `${document.documentNumber} does not match its purchase order: ${mismatches.map((mismatch) => mismatch.text).join('; ')}`.slice(
        0,
        2000,
      ),
    options: ORDER_REVIEW_OPTIONS,
    recommendations: [],
    assignees: await answerers(em, document.company.id),
  };
}
