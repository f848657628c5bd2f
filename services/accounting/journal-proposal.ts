import type {
  JournalEntry,
  JournalEntryLine,
  MissingCatalogEntry,
  PaymentLine,
} from '../../db/accounting/accounting-entry.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import type { LineItem, LineItemAdjustment } from '../../db/documents/line-item.entity.ts';
import type { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import type { ErpProduct } from '../../db/erp/product.entity.ts';
import type { ErpTax } from '../../db/erp/tax.entity.ts';
import type { ErpVendor } from '../../db/erp/vendor.entity.ts';
import type { Installment } from '../../db/payments/payable-schedule.ts';
import { countryDate, documentDate } from '../../fiscal/country-dates.ts';

// Receivers map every key the contract lists, so a proposal sends them all: null or [] when the agent cannot tell.
export type ProposedLine = Required<JournalEntryLine>;
export type ProposedPaymentLine = Required<PaymentLine>;
export type ProposedJournal = Required<Omit<JournalEntry, 'erp_journal_entry_lines' | 'payment_lines'>> & {
  erp_journal_entry_lines: ProposedLine[];
  payment_lines: ProposedPaymentLine[];
};

/** What the agent reads: the document, its line items and installments, and the company's active ERP catalogs. */
export interface ProposalInput {
  document: Pick<
    Document,
    'country' | 'type' | 'documentNumber' | 'amountCents' | 'issueDate' | 'expirationDate' | 'createdAt'
  > &
    Partial<Pick<Document, 'withholdingTotalCents' | 'prepaidCents' | 'fiscalMetadata'>>;
  lines: Pick<LineItem, 'name' | 'code' | 'quantity' | 'unitPriceCents' | 'subtotalCents' | 'adjustments'>[];
  products: Pick<ErpProduct, 'externalId' | 'code' | 'bookAccountExternalId'>[];
  taxes: Pick<ErpTax, 'externalId' | 'type' | 'rate' | 'isWithholding' | 'bookAccountExternalId'>[];
  /** Ordered by code. */
  accounts: Pick<ErpBookAccount, 'externalId' | 'code' | 'name' | 'nature'>[];
  vendor: Pick<ErpVendor, 'externalId'> | null;
  installments: Installment[];
  /** The voucher is posted on this instant's day in the document's country. */
  postedAt: Date;
}

/** Either a voucher whose every line has a book account, or what the ERP catalog lacks to make one. */
export type Proposal = { journal: ProposedJournal; missing: [] } | { journal: null; missing: MissingCatalogEntry[] };

type AccountRole = MissingCatalogEntry['role'];

const NEEDED: Record<AccountRole, string> = {
  expense:
    'An active book account of debit nature, for the lines, taxes and document allowances or charges no ERP product or tax maps to an account',
  supplier_payable:
    'An active book account of credit nature for what is owed to suppliers (a code starting with 22 is preferred), for the payment lines and unmapped withholdings',
};

/** Where a country's chart of accounts keeps advances to suppliers (PUC 1330 in Colombia, 120 in the SAT grouping). */
const ADVANCE_ACCOUNT_PREFIX = { COL: '1330', MEX: '120' } as const;

type MappedLine = Pick<ProposedLine, 'description' | 'debit_cents' | 'credit_cents' | 'metadata'> &
  Partial<Omit<ProposedLine, 'source'>>;

function agentLine(mapped: MappedLine & { book_account_external_id: string }): ProposedLine {
  return {
    source: 'agent',
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
    ...mapped,
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
 * Whether what is owed (`amountCents`) already has the withholdings taken off: a CFDI's Total always does; a DIAN
 * PayableAmount normally leaves them to the buyer, and the parser records when an issuer deducted them.
 */
const withholdingsDeducted = (document: ProposalInput['document']): boolean =>
  document.country === 'MEX' || document.fiscalMetadata?.withholdingsDeductedFromPayable === true;

const sumOf = (lines: ProposedLine[], side: 'debit_cents' | 'credit_cents') =>
  lines.reduce((sum, line) => sum + (line[side] ?? 0), 0);

/**
 * The accounting agent's proposal, a balanced voucher:
 * - debits: each line item on its product's book account (else the first expense account), and each tax on its ERP
 *   tax's account;
 * - credits: withholdings, the prepaid amount on the advances account, one payment line per installment on the
 *   supplier payable account for what is left to pay;
 * - the document's own allowances (credits) and charges (debits), and whatever still separates debits from credits
 *   (rounding, an amount not itemized in lines, as in a manual expense), on the expense account.
 * Lines it could map only by default say so in their metadata. A book account it needs and the catalog lacks is not
 * invented: the proposal names it instead, and the voucher waits for the ERP to sync it. Dates are the document
 * country's days.
 */
export function proposeJournal(input: ProposalInput): Proposal {
  const { document, products, taxes, accounts } = input;
  const expenseAccount = accounts.find((account) => account.nature === 'debit');
  const payableAccount =
    accounts.find((account) => account.nature === 'credit' && account.code.startsWith('22')) ??
    accounts.find((account) => account.nature === 'credit');
  const advanceAccount = accounts.find((account) => account.code.startsWith(ADVANCE_ACCOUNT_PREFIX[document.country]));
  const missing = new Set<AccountRole>();
  const byRole = (role: AccountRole): string => {
    const account = role === 'expense' ? expenseAccount : payableAccount;
    if (!account) missing.add(role);
    return account?.externalId ?? '';
  };
  const productOf = (code: string | null | undefined) =>
    code ? products.find((product) => product.code === code || product.externalId === code) : undefined;
  const taxOf = (rate: string | null, withholding: boolean) =>
    taxes.find((tax) => tax.isWithholding === withholding && rate !== null && Number(tax.rate) === Number(rate));

  const journalLines: ProposedLine[] = [];
  let withheld = 0;
  for (const line of input.lines) {
    const product = productOf(line.code);
    const adjustments = line.adjustments ?? [];
    const lineTaxes = adjustments.filter(
      (adjustment) => adjustment.type === 'tax' || adjustment.type === 'withholding',
    );
    journalLines.push(
      agentLine({
        description: line.name,
        book_account_external_id: product?.bookAccountExternalId ?? byRole('expense'),
        debit_cents: Number(line.subtotalCents),
        credit_cents: null,
        quantity: Number(line.quantity),
        unit_price_cents: Number(line.unitPriceCents),
        ...discountOf(adjustments),
        product_external_id: product?.externalId ?? null,
        taxes: lineTaxes.flatMap((adjustment) => {
          const tax = taxOf(adjustment.rate, adjustment.type === 'withholding');
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
        metadata: product ? {} : { needs_review: 'no ERP product matched this line' },
      }),
    );
    for (const adjustment of lineTaxes) {
      const withholding = adjustment.type === 'withholding';
      const tax = taxOf(adjustment.rate, withholding);
      if (withholding) withheld += adjustment.amountCents;
      journalLines.push(
        agentLine({
          description:
            `${withholding ? 'Withholding' : 'Tax'} ${adjustment.code ?? ''} ${adjustment.ratePercentage ?? ''}%`
              .replace(/\s+/g, ' ')
              .trim(),
          book_account_external_id: tax?.bookAccountExternalId ?? byRole(withholding ? 'supplier_payable' : 'expense'),
          debit_cents: withholding ? null : adjustment.amountCents,
          credit_cents: withholding ? adjustment.amountCents : null,
          metadata: tax ? { tax_external_id: tax.externalId } : { needs_review: 'no ERP tax matched this rate' },
        }),
      );
    }
  }
  // Withholdings the file gives only for the whole document.
  const documentWithholdings = Number(document.withholdingTotalCents ?? 0n) - withheld;
  if (documentWithholdings > 0) {
    withheld += documentWithholdings;
    journalLines.push(
      agentLine({
        description: 'Withholdings on the document',
        book_account_external_id: byRole('supplier_payable'),
        debit_cents: null,
        credit_cents: documentWithholdings,
        metadata: { needs_review: 'the file gives these withholdings for the whole document only' },
      }),
    );
  }
  for (const { charge, reason, cents } of documentAllowanceCharges(document)) {
    journalLines.push(
      agentLine({
        description: `${charge ? 'Charge' : 'Allowance'} on the document${reason ? `: ${reason}` : ''}`,
        book_account_external_id: byRole('expense'),
        debit_cents: charge ? cents : null,
        credit_cents: charge ? null : cents,
        metadata: { document_level: true },
      }),
    );
  }
  const prepaid = Number(document.prepaidCents ?? 0n);
  if (prepaid > 0) {
    journalLines.push(
      agentLine({
        description: 'Prepaid by the company (advance applied)',
        book_account_external_id: advanceAccount?.externalId ?? byRole('supplier_payable'),
        debit_cents: null,
        credit_cents: prepaid,
        metadata: advanceAccount
          ? { prepaid: true }
          : { prepaid: true, needs_review: 'no advances account in the catalog' },
      }),
    );
  }

  const { installments } = input;
  const owed = Number(document.amountCents) - (withholdingsDeducted(document) ? 0 : withheld);
  const paymentLines: ProposedPaymentLine[] = installments.map((installment, index) => ({
    book_account_external_id: byRole('supplier_payable'),
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

  const credits = sumOf(journalLines, 'credit_cents') + paymentLines.reduce((sum, line) => sum + line.amount_cents, 0);
  const difference = sumOf(journalLines, 'debit_cents') - credits;
  if (difference !== 0) {
    journalLines.push(
      agentLine({
        description: input.lines.length === 0 ? 'Amount of the document' : 'Difference to the document total',
        book_account_external_id: byRole('expense'),
        debit_cents: difference < 0 ? -difference : null,
        credit_cents: difference > 0 ? difference : null,
        metadata:
          input.lines.length === 0
            ? { reason: 'not_itemized' }
            : { reason: 'difference_to_total', needs_review: 'debits and credits differ by this amount' },
      }),
    );
  }

  if (missing.size > 0)
    return {
      journal: null,
      missing: [...missing].map((role) => ({ catalog: 'book_accounts', role, description: NEEDED[role] })),
    };
  return {
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
    missing: [],
  };
}
