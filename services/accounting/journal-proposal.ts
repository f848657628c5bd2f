import type { JournalEntry, JournalEntryLine, PaymentLine } from '../../db/accounting/accounting-entry.entity.ts';
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
  >;
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

type MappedLine = Pick<
  ProposedLine,
  'description' | 'book_account_external_id' | 'debit_cents' | 'credit_cents' | 'metadata'
> &
  Partial<Omit<ProposedLine, 'source'>>;

function agentLine(mapped: MappedLine): ProposedLine {
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

/**
 * The accounting agent's proposal: one debit line per line item on its product's book account (or the first expense
 * account), tax lines on each ERP tax's account, withholdings as credits, and one payment line per installment on the
 * supplier payable account. Lines it could not map say so in their metadata. Dates are the document country's days.
 */
export function proposeJournal(input: ProposalInput): ProposedJournal {
  const { document, products, taxes, accounts } = input;
  const expenseAccount = accounts.find((account) => account.nature === 'debit')?.externalId ?? 'unmapped-expense';
  const payableAccount =
    accounts.find((account) => account.nature === 'credit' && account.code.startsWith('22')) ??
    accounts.find((account) => account.nature === 'credit');
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
        book_account_external_id: product?.bookAccountExternalId ?? expenseAccount,
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
          book_account_external_id:
            tax?.bookAccountExternalId ??
            (withholding ? (payableAccount?.externalId ?? 'unmapped-payable') : expenseAccount),
          debit_cents: withholding ? null : adjustment.amountCents,
          credit_cents: withholding ? adjustment.amountCents : null,
          metadata: tax ? { tax_external_id: tax.externalId } : { needs_review: 'no ERP tax matched this rate' },
        }),
      );
    }
  }
  const { installments } = input;
  const payable = Number(document.amountCents) - withheld;
  const paymentLines: ProposedPaymentLine[] = installments.map((installment, index) => ({
    book_account_external_id: payableAccount?.externalId ?? 'unmapped-payable',
    book_account_code: payableAccount?.code ?? null,
    book_account_name: payableAccount?.name ?? null,
    amount_cents:
      index === installments.length - 1
        ? payable - installments.slice(0, -1).reduce((sum, part) => sum + Number(part.amountCents), 0)
        : Number(installment.amountCents),
    due_date: installment.dueDate,
    quota_number: installment.number,
    payment_method_external_id: null,
    cost_center_external_id: null,
  }));
  return {
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
  };
}
