import type {
  JournalEntry,
  JournalEntryLine,
  MissingCatalogEntry,
  PaymentLine,
} from '../../db/accounting/accounting-entry.entity.ts';
import { normalizedDescription } from '../../db/accounting/book-account-rules.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import type { LineItem, LineItemAdjustment } from '../../db/documents/line-item.entity.ts';
import type { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import type { ErpProduct } from '../../db/erp/product.entity.ts';
import type { ErpTax } from '../../db/erp/tax.entity.ts';
import type { ErpVendor } from '../../db/erp/vendor.entity.ts';
import { owedCents, type Installment } from '../../db/payments/payable-schedule.ts';
import { countryDate, documentDate } from '../../fiscal/country-dates.ts';
import { crossWithOrder, type Mismatch, type OrderForCrossing } from './order-crossing.ts';
import { taxLabel, taxTypeOf } from './tax-types.ts';

// Receivers map every key the contract lists, so a proposal sends them all: null or [] when the agent cannot tell.
export type ProposedLine = Required<JournalEntryLine>;
export type ProposedPaymentLine = Required<PaymentLine>;
export type ProposedJournal = Required<Omit<JournalEntry, 'erp_journal_entry_lines' | 'payment_lines'>> & {
  erp_journal_entry_lines: ProposedLine[];
  payment_lines: ProposedPaymentLine[];
};

/** Where a line's book account came from, recorded in its `metadata.account_source`. */
export type AccountSource =
  'purchase_order' | 'product' | 'tax' | 'company_rule' | 'vendor_default' | 'classification' | 'rounding' | 'chart';

/** What a company's people taught the agent for this supplier: a product or a description goes to an account. */
export interface TaughtRule {
  matchKind: 'product' | 'description';
  matchKey: string;
  bookAccountExternalId: string;
  source: 'classification' | 'voucher';
  sourceReference: string;
}

/** A person's answers to what the agent asked on this document. */
export interface Decisions {
  /** The `book_account` classification: the account of every line no evidence placed. */
  bookAccount?: { accountExternalId: string; stepId: string; by: string } | null;
  /** The purchase-order review: approved, the lines beyond their order are accounted as direct purchases. */
  orderReview?: { approved: boolean; stepId: string } | null;
}

/** What the agent reads: the document, its line items and installments, and the company's active ERP catalogs. */
export interface ProposalInput {
  document: Pick<
    Document,
    'country' | 'type' | 'documentNumber' | 'amountCents' | 'issueDate' | 'expirationDate' | 'createdAt'
  > &
    Partial<Pick<Document, 'withholdingTotalCents' | 'prepaidCents' | 'fiscalMetadata' | 'purchaseOrder'>>;
  lines: Pick<LineItem, 'name' | 'code' | 'quantity' | 'unitPriceCents' | 'subtotalCents' | 'adjustments'>[];
  products: Pick<ErpProduct, 'externalId' | 'code' | 'bookAccountExternalId'>[];
  taxes: Pick<ErpTax, 'externalId' | 'type' | 'rate' | 'isWithholding' | 'bookAccountExternalId'>[];
  /** The active book accounts, ordered by code. */
  accounts: Pick<ErpBookAccount, 'externalId' | 'code' | 'name' | 'nature'>[];
  vendor: (Pick<ErpVendor, 'externalId'> & { bookAccountExternalId?: string | null }) | null;
  installments: Installment[];
  /** The voucher is posted on this instant's day in the document's country. */
  postedAt: Date;
  /** The supplier's taught rules for the keys of these lines. */
  rules?: TaughtRule[];
  /** The synced order the document's `purchase_order` names, if any. */
  order?: OrderForCrossing | null;
  priceTolerancePercent?: number;
  decisions?: Decisions;
}

/** A line no evidence places: a person chooses its account through the `book_account` step. */
export interface UnplacedLine {
  description: string;
  productCode: string | null;
  debitCents: number | null;
  creditCents: number | null;
}

/**
 * The agent's answer: a voucher whose every line has an account some evidence names, or why there is none yet. A
 * person's answer comes first (a review of the order, then the accounts of unplaced lines), then the ERP catalog.
 */
export type Proposal = { journal: ProposedJournal; status: 'ready' } | Waiting;
type Waiting = { journal: null } & (
  | { status: 'awaiting_order_review'; mismatches: Mismatch[] }
  | { status: 'awaiting_classification'; unplaced: UnplacedLine[] }
  | { status: 'awaiting_catalog'; missing: MissingCatalogEntry[] }
);

/** Where each country's chart keeps what is owed to suppliers (PUC 22; 201 in the SAT grouping) and advances to them. */
const CHART_PREFIXES = {
  COL: { payable: ['22'], advance: ['1330'] },
  MEX: { payable: ['201'], advance: ['120'] },
} as const;

const NEEDED: Record<'expense' | 'supplier_payable' | 'supplier_advance', string> = {
  expense: 'An active book account of debit nature, to choose from for the lines no evidence places',
  supplier_payable:
    'An active book account of credit nature for what is owed to suppliers (PUC 22 in Colombia, 201 in Mexico)',
  supplier_advance: 'An active book account for advances to suppliers (PUC 1330 in Colombia, 120 in Mexico)',
};

type MappedLine = Pick<ProposedLine, 'description' | 'debit_cents' | 'credit_cents'> &
  Partial<Omit<ProposedLine, 'source' | 'book_account_external_id'>>;

/** A line being built: its account comes from evidence, or is left for a person (`null`). */
interface Draft {
  line: MappedLine & { source: ProposedLine['source'] };
  account: { externalId: string; source: AccountSource; detail?: Record<string, unknown> } | null;
  /** `item`: a line of the document, whose account a person's choice can place and teach; `other`: a charge,
   * allowance or difference a person's choice can place; `tax` and `chart` lines wait for the catalog instead. */
  kind: 'item' | 'other' | 'tax' | 'chart';
  productCode: string | null;
}

function proposedLine(draft: Draft, account: string, metadata: Record<string, unknown>): ProposedLine {
  return {
    quantity: null,
    unit_price_cents: null,
    discount: null,
    discount_rate: null,
    product_external_id: null,
    vendor_external_id: null,
    cost_centers: [],
    warehouses: [],
    taxes: [],
    purchase_order_line_external_id: null,
    goods_receipt_line_external_id: null,
    ...draft.line,
    book_account_external_id: account,
    metadata: { ...draft.line.metadata, ...metadata },
  };
}

/** A line's discounts, already taken off its subtotal: the amount in cents, and the rate when a single one gives it. */
function discountOf(adjustments: LineItemAdjustment[]): Pick<ProposedLine, 'discount' | 'discount_rate'> {
  const discounts = adjustments.filter((adjustment) => adjustment.type === 'discount');
  if (discounts.length === 0) return { discount: null, discount_rate: null };
  const rate = discounts.length === 1 ? (discounts[0]?.ratePercentage ?? null) : null;
  return {
    discount: discounts.reduce((sum, adjustment) => sum + adjustment.amountCents, 0),
    discount_rate: rate === null ? null : Number(rate),
  };
}

/** The document-level allowances and charges the fiscal file lists (DIAN's AllowanceCharge under the root). */
function documentAllowanceCharges(
  document: ProposalInput['document'],
): { charge: boolean; reason: string; cents: number }[] {
  const listed = document.fiscalMetadata?.documentAllowanceCharges;
  if (!Array.isArray(listed)) return [];
  return listed.flatMap((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const { type, reason, amount } = entry as Record<string, unknown>;
    const cents = typeof amount === 'string' ? Math.round(Number(amount) * 100) : NaN;
    if ((type !== 'charge' && type !== 'discount') || !Number.isFinite(cents)) return [];
    return [{ charge: type === 'charge', reason: typeof reason === 'string' ? reason : '', cents }];
  });
}

/**
 * Whether what is owed (the total less what was prepaid) already has the withholdings taken off: a CFDI's Total always does; a DIAN
 * PayableAmount normally leaves them to the buyer, and the parser records when an issuer deducted them.
 */
const withholdingsDeducted = (document: ProposalInput['document']): boolean =>
  document.country === 'MEX' || document.fiscalMetadata?.withholdingsDeductedFromPayable === true;

const sumOf = (lines: Pick<ProposedLine, 'debit_cents' | 'credit_cents'>[], side: 'debit_cents' | 'credit_cents') =>
  lines.reduce((sum, line) => sum + (line[side] ?? 0), 0);

/**
 * The accounting agent's proposal, a balanced voucher. Each line's account comes from the first evidence that names
 * an active account, recorded in its `metadata.account_source`:
 * - item lines: their purchase-order line's product, the ERP product of their code, the rule the company's people
 *   taught for this supplier (same product, else same description), the vendor's default account;
 * - taxes and withholdings: the ERP tax of the same type, withholding or not, and rate;
 * - what is owed: the chart's supplier payable account; what was prepaid: its advances account;
 * - a rounding difference: the largest item line's account.
 * What no evidence places waits for a person (a `book_account` classification), whose choice then places it; what the
 * catalog lacks altogether is named and waits for the ERP. Nothing goes to an account picked by code order.
 */
export function proposeJournal(input: ProposalInput): Proposal {
  const { document, products, taxes, decisions = {} } = input;
  const active = new Map(input.accounts.map((account) => [account.externalId, account]));
  const usable = (externalId: string | null | undefined) => (externalId && active.has(externalId) ? externalId : null);
  const byPrefix = (prefixes: readonly string[], nature: 'debit' | 'credit' | null) =>
    input.accounts.find(
      (account) =>
        (nature === null || account.nature === nature) && prefixes.some((prefix) => account.code.startsWith(prefix)),
    );
  const chart = CHART_PREFIXES[document.country];
  const payableAccount = byPrefix(chart.payable, 'credit');
  const productOf = (code: string | null | undefined) =>
    code ? products.find((product) => product.code === code || product.externalId === code) : undefined;
  const productById = (externalId: string | null) =>
    externalId ? products.find((product) => product.externalId === externalId) : undefined;
  const taught = (kind: TaughtRule['matchKind'], key: string | null) =>
    key ? input.rules?.find((rule) => rule.matchKind === kind && rule.matchKey === key) : undefined;

  // The purchase order, crossed before anything else: a line beyond it is not accounted until a person looks.
  const lineProducts = input.lines.map((line) => productOf(line.code));
  const crossing =
    input.order && document.purchaseOrder
      ? crossWithOrder(
          input.order,
          input.vendor?.externalId ?? null,
          input.lines.map((line, index) => ({
            index,
            description: line.name,
            productExternalId: lineProducts[index]?.externalId ?? null,
            quantity: String(line.quantity),
            unitPriceCents: Number(line.unitPriceCents),
          })),
          input.priceTolerancePercent ?? 0,
        )
      : { crossed: [], mismatches: [] };
  if (crossing.mismatches.length > 0 && !decisions.orderReview?.approved)
    return { journal: null, status: 'awaiting_order_review', mismatches: crossing.mismatches };
  const crossedLine = new Map(crossing.crossed.map((crossed) => [crossed.index, crossed.orderLine]));

  const drafts: Draft[] = [];
  const missing = new Map<string, MissingCatalogEntry>();
  const taxOf = (adjustment: LineItemAdjustment) => {
    const withholding = adjustment.type === 'withholding';
    const type = taxTypeOf(document.country, adjustment);
    const tax = type
      ? taxes.find(
          (candidate) =>
            candidate.type === type &&
            candidate.isWithholding === withholding &&
            // A tax charged per unit (a Cuota, the bag tax) has no rate on either side.
            (adjustment.rate === null
              ? candidate.rate === null
              : candidate.rate !== null && Number(candidate.rate) === Number(adjustment.rate)),
        )
      : undefined;
    return { tax, type, withholding, account: usable(tax?.bookAccountExternalId) };
  };

  let withheld = 0;
  input.lines.forEach((line, index) => {
    const adjustments = line.adjustments ?? [];
    const lineTaxes = adjustments.filter(
      (adjustment) => adjustment.type === 'tax' || adjustment.type === 'withholding',
    );
    const orderLine = crossedLine.get(index);
    const product = orderLine ? (productById(orderLine.productExternalId) ?? lineProducts[index]) : lineProducts[index];
    const description = normalizedDescription(line.name);
    const productCode = line.code?.trim() || null;
    const rule = taught('product', productCode) ?? taught('description', description);
    const account: Draft['account'] =
      (usable(product?.bookAccountExternalId) &&
        ({
          externalId: product!.bookAccountExternalId!,
          source: orderLine ? 'purchase_order' : 'product',
        } as const)) ||
      (usable(rule?.bookAccountExternalId) && {
        externalId: rule!.bookAccountExternalId,
        source: 'company_rule' as const,
        detail: { rule: { match: rule!.matchKind, source: rule!.source, reference: rule!.sourceReference } },
      }) ||
      (usable(input.vendor?.bookAccountExternalId) && {
        externalId: input.vendor!.bookAccountExternalId!,
        source: 'vendor_default' as const,
      }) ||
      null;
    drafts.push({
      line: {
        source: orderLine ? 'purchase_order' : 'agent',
        description: line.name,
        debit_cents: Number(line.subtotalCents),
        credit_cents: null,
        quantity: Number(line.quantity),
        unit_price_cents: Number(line.unitPriceCents),
        ...discountOf(adjustments),
        product_external_id: product?.externalId ?? null,
        purchase_order_line_external_id: orderLine?.externalId ?? null,
        taxes: lineTaxes.flatMap((adjustment) => {
          const { tax } = taxOf(adjustment);
          return tax
            ? [
                {
                  tax_external_id: tax.externalId,
                  base_cents: adjustment.baseAmountCents,
                  amount_cents: adjustment.amountCents,
                  type: tax.type ?? adjustment.type,
                },
              ]
            : [];
        }),
        metadata: orderLine ? { purchase_order: input.order!.number } : {},
      },
      account,
      productCode,
      kind: 'item',
    });
    // A tax of no amount (exempt, 0%) puts nothing in the books: it needs no account.
    for (const adjustment of lineTaxes.filter((tax) => tax.amountCents !== 0)) {
      const { tax, type, withholding, account: taxAccount } = taxOf(adjustment);
      if (withholding) withheld += adjustment.amountCents;
      const label = taxLabel(type, withholding, adjustment.ratePercentage);
      if (!taxAccount)
        missing.set(label, {
          catalog: 'taxes',
          role: withholding ? 'withholding' : 'tax',
          description: `An active ERP tax for ${label}, with its book account${type ? '' : ' (the file gives no tax scheme this product knows)'}`,
        });
      drafts.push({
        line: {
          source: 'agent',
          description: label.charAt(0).toUpperCase() + label.slice(1),
          debit_cents: withholding ? null : adjustment.amountCents,
          credit_cents: withholding ? adjustment.amountCents : null,
          metadata: tax ? { tax_external_id: tax.externalId } : {},
        },
        account: taxAccount ? { externalId: taxAccount, source: 'tax' } : null,
        productCode: null,
        kind: 'tax',
      });
    }
  });
  // Withholdings the file gives only for the whole document: no type or rate to match a tax with.
  const documentWithholdings = Number(document.withholdingTotalCents ?? 0n) - withheld;
  if (documentWithholdings > 0) {
    withheld += documentWithholdings;
    missing.set('document withholdings', {
      catalog: 'taxes',
      role: 'withholding',
      description: 'The file gives withholdings for the whole document only, with no tax type or rate to match',
    });
  }
  for (const { charge, reason, cents } of documentAllowanceCharges(document)) {
    drafts.push({
      line: {
        source: 'agent',
        description: `${charge ? 'Charge' : 'Allowance'} on the document${reason ? `: ${reason}` : ''}`,
        debit_cents: charge ? cents : null,
        credit_cents: charge ? null : cents,
        metadata: { document_level: true },
      },
      account: usable(input.vendor?.bookAccountExternalId)
        ? { externalId: input.vendor!.bookAccountExternalId!, source: 'vendor_default' }
        : null,
      productCode: null,
      kind: 'other',
    });
  }
  const prepaid = Number(document.prepaidCents ?? 0n);
  if (prepaid > 0) {
    const advance = byPrefix(chart.advance, null);
    if (!advance)
      missing.set('supplier_advance', {
        catalog: 'book_accounts',
        role: 'supplier_advance',
        description: NEEDED.supplier_advance,
      });
    drafts.push({
      line: {
        source: 'agent',
        description: 'Prepaid by the company (advance applied)',
        debit_cents: null,
        credit_cents: prepaid,
        metadata: { prepaid: true },
      },
      account: advance ? { externalId: advance.externalId, source: 'chart' } : null,
      productCode: null,
      kind: 'chart',
    });
  }
  if (!payableAccount)
    missing.set('supplier_payable', {
      catalog: 'book_accounts',
      role: 'supplier_payable',
      description: NEEDED.supplier_payable,
    });

  const { installments } = input;
  const owed =
    Number(owedCents({ ...document, prepaidCents: document.prepaidCents ?? null })) -
    (withholdingsDeducted(document) ? 0 : withheld);
  const paymentLines: ProposedPaymentLine[] = installments.map((installment, index) => ({
    book_account_external_id: payableAccount?.externalId ?? '',
    book_account_code: payableAccount?.code ?? null,
    book_account_name: payableAccount?.name ?? null,
    amount_cents:
      index === installments.length - 1
        ? owed - installments.slice(0, -1).reduce((sum, part) => sum + Number(part.amountCents), 0)
        : Number(installment.amountCents),
    due_date: installment.dueDate,
    quota_number: installment.number,
    payment_method_external_id: null,
    cost_center_external_id: null,
  }));

  // What still separates debits from credits: a rounding of the lines, or an amount not itemized (a manual expense).
  const lines = drafts.map((draft) => draft.line);
  const credits = sumOf(lines, 'credit_cents') + paymentLines.reduce((sum, line) => sum + line.amount_cents, 0);
  const difference = sumOf(lines, 'debit_cents') - credits;
  if (difference !== 0) {
    const items = drafts.filter((draft) => draft.kind === 'item');
    const largest = items.reduce<Draft | undefined>(
      (best, draft) => ((draft.line.debit_cents ?? 0) > (best?.line.debit_cents ?? -1) ? draft : best),
      undefined,
    );
    const rounding = largest?.account && Math.abs(difference) <= Math.max(1, items.length);
    drafts.push({
      line: {
        source: 'agent',
        description: items.length === 0 ? 'Amount of the document' : 'Difference to the document total',
        debit_cents: difference < 0 ? -difference : null,
        credit_cents: difference > 0 ? difference : null,
        metadata: { reason: items.length === 0 ? 'not_itemized' : rounding ? 'rounding' : 'difference_to_total' },
      },
      account: rounding
        ? { externalId: largest.account!.externalId, source: 'rounding' }
        : usable(input.vendor?.bookAccountExternalId)
          ? { externalId: input.vendor!.bookAccountExternalId!, source: 'vendor_default' }
          : null,
      productCode: null,
      kind: 'other',
    });
  }

  // A person's choice places what evidence did not, if that account is still an active debit one.
  const chosen = decisions.bookAccount;
  const chosenAccount = chosen && active.get(chosen.accountExternalId)?.nature === 'debit' ? chosen : null;
  const unplaced = drafts.filter(
    (draft) => draft.account === null && (draft.kind === 'item' || draft.kind === 'other'),
  );
  if (unplaced.length > 0 && !chosenAccount) {
    if (!input.accounts.some((account) => account.nature === 'debit'))
      missing.set('expense', { catalog: 'book_accounts', role: 'expense', description: NEEDED.expense });
    else
      return {
        journal: null,
        status: 'awaiting_classification',
        unplaced: unplaced.map((draft) => ({
          description: draft.line.description ?? '',
          productCode: draft.productCode,
          debitCents: draft.line.debit_cents,
          creditCents: draft.line.credit_cents,
        })),
      };
  }
  if (missing.size > 0) return { journal: null, status: 'awaiting_catalog', missing: [...missing.values()] };

  const journalLines = drafts.map((draft) => {
    if (draft.account)
      return proposedLine(draft, draft.account.externalId, {
        account_source: draft.account.source,
        ...draft.account.detail,
      });
    return proposedLine(draft, chosenAccount!.accountExternalId, {
      account_source: 'classification',
      classification_step: chosenAccount!.stepId,
      decided_by: chosenAccount!.by,
    });
  });
  if (crossing.mismatches.length > 0)
    for (const mismatch of crossing.mismatches) {
      const line = mismatch.index === null ? null : journalLines[lineIndexOf(drafts, mismatch.index)];
      if (line)
        line.metadata = { ...line.metadata, purchase_order_review: { approved: true, mismatch: mismatch.text } };
    }

  return {
    status: 'ready',
    journal: {
      status: 'posted',
      document_number: document.documentNumber,
      document_type_external_id: null,
      vendor_external_id: input.vendor?.externalId ?? null,
      issue_date: documentDate(document.issueDate ?? document.createdAt, document),
      posting_date: countryDate(input.postedAt, document.country),
      expiration_date: document.expirationDate ? documentDate(document.expirationDate, document) : null,
      cost_center_external_id: null,
      description: `${document.type.replace('_', ' ')} ${document.documentNumber}`,
      erp_journal_entry_lines: journalLines,
      payment_lines: paymentLines,
      erp_journal_entry_taxes: [],
    },
  };
}

/** The draft of the `index`-th item line (tax lines sit between item lines). */
function lineIndexOf(drafts: Draft[], index: number): number {
  let seen = -1;
  return drafts.findIndex((draft) => draft.kind === 'item' && ++seen === index);
}

/** The lines a person's `book_account` choice placed, as the rules the company taught for this supplier. */
export function taughtBy(
  journal: Pick<ProposedJournal, 'erp_journal_entry_lines'>,
  lines: ProposalInput['lines'],
): Pick<TaughtRule, 'matchKind' | 'matchKey' | 'bookAccountExternalId'>[] {
  const items = journal.erp_journal_entry_lines.filter((line) => line.quantity !== null);
  return items.flatMap((line, index) => {
    if (line.metadata?.account_source !== 'classification') return [];
    const code = lines[index]?.code?.trim();
    const account = line.book_account_external_id;
    return [
      ...(code ? [{ matchKind: 'product' as const, matchKey: code, bookAccountExternalId: account }] : []),
      {
        matchKind: 'description' as const,
        matchKey: normalizedDescription(line.description ?? ''),
        bookAccountExternalId: account,
      },
    ];
  });
}
