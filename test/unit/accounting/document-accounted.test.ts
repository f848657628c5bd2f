import { describe, expect, it } from 'vitest';
import { proposeJournal, type ProposalInput } from '../../../services/accounting/journal-proposal.ts';
import { taxTypeOf } from '../../../services/accounting/tax-types.ts';
import { documentAccountedPayload } from '../../../services/webhooks/payloads.ts';
import type { AccountingEntry } from '../../../db/accounting/accounting-entry.entity.ts';
import type { Document } from '../../../db/documents/document.entity.ts';
import type { LineItemAdjustment } from '../../../db/documents/line-item.entity.ts';
import type { EntityManager } from '../../../db/orm.ts';
import { installmentsOf } from '../../../db/payments/payable-schedule.ts';
import { countryDate, documentDate } from '../../../fiscal/country-dates.ts';
import { fixtureText, parseDocument } from '../fiscal/fixtures.ts';
import { JOURNAL_ENTRY_KEYS, JOURNAL_LINE_KEYS, PAYMENT_LINE_KEYS, keysOf } from '../../helpers/voucher-keys.ts';

type DocumentFields = ProposalInput['document'] & Pick<Document, 'beneficiary'>;

const CATALOG: ProposalInput['accounts'] = [
  { externalId: 'ba-2205', code: '220505', name: 'Proveedores nacionales', nature: 'credit' },
  { externalId: 'ba-2408', code: '240802', name: 'IVA descontable', nature: 'debit' },
  { externalId: 'ba-2365', code: '236540', name: 'Retención en la fuente', nature: 'credit' },
  { externalId: 'ba-5110', code: '511025', name: 'Asesoría técnica', nature: 'debit' },
  { externalId: 'mx-201', code: '201.01', name: 'Proveedores nacionales', nature: 'credit' },
];

/** A tax catalog that has every tax the lines charge or withhold, each on the account of its side. */
function taxesOf(country: 'COL' | 'MEX', lines: ProposalInput['lines']): ProposalInput['taxes'] {
  const seen = new Map<string, ProposalInput['taxes'][number]>();
  for (const adjustment of lines.flatMap((line) => line.adjustments ?? [])) {
    if (adjustment.type !== 'tax' && adjustment.type !== 'withholding') continue;
    const type = taxTypeOf(country, adjustment);
    const withholding = adjustment.type === 'withholding';
    const key = `${type}-${withholding}-${adjustment.rate}`;
    seen.set(key, {
      externalId: `t-${key}`,
      type,
      rate: adjustment.rate,
      isWithholding: withholding,
      bookAccountExternalId: withholding ? 'ba-2365' : 'ba-2408',
    });
  }
  return [...seen.values()];
}

// Issued in the evening: already the next day in UTC.
const colombian: DocumentFields = {
  country: 'COL',
  type: 'invoice',
  documentNumber: 'SETP990000008',
  amountCents: 119_000_00n,
  issueDate: new Date('2026-03-20T19:30:00-05:00'),
  expirationDate: null,
  createdAt: new Date('2026-03-21T02:00:00Z'),
  beneficiary: null,
};
const mexican: DocumentFields = {
  ...colombian,
  country: 'MEX',
  documentNumber: 'A-123',
  issueDate: new Date('2026-03-20T23:00:00-06:00'),
  expirationDate: new Date('2026-04-19T22:00:00-06:00'),
};

/** The installments as the voucher gets them: a document without beneficiary never reaches the ERP catalogs. */
const installments = (document: DocumentFields) => installmentsOf({} as EntityManager, document as Document);

async function proposal(document: DocumentFields, overrides: Partial<ProposalInput> = {}) {
  return proposeJournal({
    document,
    lines: [],
    products: [],
    taxes: [],
    accounts: [],
    vendor: null,
    installments: await installments(document),
    postedAt: new Date('2026-03-25T21:00:00-05:00'),
    ...overrides,
  });
}

/** A voucher the catalog maps whole: every tax in the catalog, and the vendor's default account for the rest. */
async function voucher(document: DocumentFields, overrides: Partial<ProposalInput> = {}) {
  const proposed = await proposal(document, {
    accounts: CATALOG,
    taxes: taxesOf(document.country, overrides.lines ?? []),
    vendor: { externalId: 'v-1', bookAccountExternalId: 'ba-5110' },
    ...overrides,
  });
  if (!proposed.journal) throw new Error(`Unexpectedly waiting: ${JSON.stringify(proposed)}`);
  return proposed.journal;
}

function accountedPayload(document: DocumentFields) {
  const full = {
    id: '0190a1b2-0000-7000-8000-000000000001',
    currency: 'COP',
    approvalStatus: 'approved',
    paymentStatus: 'pending',
    fiscalReference: null,
    fiscalMetadata: null,
    purchaseOrder: null,
    ...document,
  } as unknown as Document;
  const entry = {
    id: '0190a1b2-0000-7000-8000-000000000002',
    accountedAt: new Date('2026-03-25T12:00:00Z'),
    isCrossed: false,
    summary: {},
    journalEntry: {},
    advanceCrossings: [],
    registrationPayload: null,
  } as unknown as AccountingEntry;
  return documentAccountedPayload(full, null, entry, null) as { data: Record<string, unknown> };
}

describe('document.accounted dates are the days of the document country', () => {
  it('counts an instant in Bogotá or Mexico City, not in UTC', () => {
    expect(countryDate(new Date('2026-03-21T00:30:00Z'), 'COL')).toBe('2026-03-20');
    expect(countryDate(new Date('2026-03-21T05:00:00Z'), 'MEX')).toBe('2026-03-20');
    // Mexico City kept daylight saving time until 2022: 00:30 CDT was 05:30 UTC, still the same day there.
    expect(countryDate(new Date('2021-07-01T00:30:00-05:00'), 'MEX')).toBe('2021-07-01');
  });

  it('counts a CFDI in the zone of its place of issue, as its fiscal metadata names it', () => {
    // 22:30 in Tijuana is already the next day in Mexico City.
    const tijuana = {
      ...mexican,
      issueDate: new Date('2026-01-15T22:30:00-08:00'),
      fiscalMetadata: { timeZone: 'America/Tijuana' },
    };
    expect(countryDate(tijuana.issueDate, 'MEX')).toBe('2026-01-16');
    expect(documentDate(tijuana.issueDate, tijuana)).toBe('2026-01-15');
    expect(accountedPayload(tijuana).data.issue_date).toBe('2026-01-15');
  });

  it('sends the issue date as written on the invoice', () => {
    expect(accountedPayload(colombian).data.issue_date).toBe('2026-03-20');
    expect(accountedPayload(mexican).data.issue_date).toBe('2026-03-20');
    expect(accountedPayload({ ...colombian, issueDate: null }).data.issue_date).toBeNull();
  });

  it("dates the agent's voucher, and its installments, in the document's country", async () => {
    const fromColombia = await voucher(colombian);
    expect(fromColombia).toMatchObject({ issue_date: '2026-03-20', posting_date: '2026-03-25', expiration_date: null });
    expect(fromColombia.payment_lines.map((line) => line.due_date)).toEqual(['2026-03-20']);

    const fromMexico = await voucher(mexican, { postedAt: new Date('2026-03-25T21:00:00-06:00') });
    expect(fromMexico).toMatchObject({
      issue_date: '2026-03-20',
      posting_date: '2026-03-25',
      expiration_date: '2026-04-19',
    });
    expect(fromMexico.payment_lines.map((line) => line.due_date)).toEqual(['2026-04-19']);
  });

  it('keeps the voucher and the payables on the same day across a former daylight-saving summer', async () => {
    const summer = { ...mexican, issueDate: new Date('2021-07-01T00:30:00-05:00'), expirationDate: null };
    const proposed = await voucher(summer);
    expect(proposed.issue_date).toBe('2021-07-01');
    expect(proposed.payment_lines[0]?.due_date).toBe('2021-07-01');
  });
});

describe("the agent's voucher carries every key the contract lists", () => {
  const adjustment = (
    fields: Partial<LineItemAdjustment> & Pick<LineItemAdjustment, 'type' | 'amountCents'>,
  ): LineItemAdjustment => ({
    code: null,
    rate: null,
    ratePercentage: null,
    baseAmountCents: 100_000_00,
    isInclusive: false,
    metadata: {},
    ...fields,
  });
  const input: Partial<ProposalInput> = {
    lines: [
      {
        name: 'Consultoría',
        code: 'SRV-1',
        quantity: '1.000000',
        unitPriceCents: 110_000_00n,
        subtotalCents: 100_000_00n,
        adjustments: [
          adjustment({ type: 'discount', amountCents: 10_000_00, ratePercentage: '9.09', baseAmountCents: 110_000_00 }),
          adjustment({ type: 'tax', code: '01', rate: '0.19', ratePercentage: '19', amountCents: 19_000_00 }),
          adjustment({ type: 'withholding', code: '06', rate: '0.04', ratePercentage: '4', amountCents: 4_000_00 }),
        ],
      },
    ],
    products: [{ externalId: 'p-1', code: 'SRV-1', bookAccountExternalId: 'ba-5110' }],
    taxes: [
      { externalId: 't-iva', type: 'iva', rate: '0.19000000', isWithholding: false, bookAccountExternalId: 'ba-2408' },
      { externalId: 't-rf', type: 'retefuente', rate: '0.04', isWithholding: true, bookAccountExternalId: 'ba-2365' },
    ],
    accounts: CATALOG,
    vendor: { externalId: 'v-1' },
  };

  it('on the journal entry, each line and each payment line, null or empty when the agent cannot tell', async () => {
    const journal = await voucher(colombian, input);
    expect(keysOf(journal)).toEqual(JOURNAL_ENTRY_KEYS);
    expect(journal).toMatchObject({
      document_type_external_id: null,
      cost_center_external_id: null,
      vendor_external_id: 'v-1',
    });
    expect(journal.erp_journal_entry_lines).toHaveLength(3);
    for (const line of journal.erp_journal_entry_lines) {
      expect(keysOf(line)).toEqual(JOURNAL_LINE_KEYS);
      expect(line).toMatchObject({
        source: 'agent',
        cost_centers: [],
        warehouses: [],
        purchase_order_line_external_id: null,
        goods_receipt_line_external_id: null,
      });
    }
    expect(journal.payment_lines).toHaveLength(1);
    for (const line of journal.payment_lines) expect(keysOf(line)).toEqual(PAYMENT_LINE_KEYS);
  });

  it("fills what it knows: the line's discount, the payable account's code and name", async () => {
    const journal = await voucher(colombian, input);
    const [item, tax, withholding] = journal.erp_journal_entry_lines;
    expect(item).toMatchObject({
      book_account_external_id: 'ba-5110',
      debit_cents: 100_000_00,
      discount: 10_000_00,
      discount_rate: 9.09,
      product_external_id: 'p-1',
    });
    expect(tax).toMatchObject({
      book_account_external_id: 'ba-2408',
      debit_cents: 19_000_00,
      discount: null,
      discount_rate: null,
      taxes: [],
    });
    expect(withholding).toMatchObject({
      book_account_external_id: 'ba-2365',
      credit_cents: 4_000_00,
      metadata: { tax_external_id: 't-rf', account_source: 'tax' },
    });
    expect(journal.payment_lines[0]).toEqual({
      book_account_external_id: 'ba-2205',
      book_account_code: '220505',
      book_account_name: 'Proveedores nacionales',
      amount_cents: 115_000_00,
      due_date: '2026-03-20',
      quota_number: 1,
      payment_method_external_id: null,
      cost_center_external_id: null,
    });
  });

  it('names what the catalog lacks instead of inventing it', async () => {
    const noPayable = CATALOG.filter((account) => !['ba-2205', 'mx-201'].includes(account.externalId));
    expect(await proposal(colombian, { ...input, accounts: noPayable })).toEqual({
      journal: null,
      status: 'awaiting_catalog',
      missing: [expect.objectContaining({ catalog: 'book_accounts', role: 'supplier_payable' })],
    });
    const noWithholding = await proposal(colombian, { ...input, taxes: input.taxes!.slice(0, 1) });
    expect(noWithholding).toMatchObject({
      status: 'awaiting_catalog',
      missing: [{ catalog: 'taxes', role: 'withholding', description: expect.stringContaining('RETEFUENTE 4%') }],
    });
  });
});

describe("the agent's voucher balances", () => {
  /** What the importer stores of a real fiscal file, as the agent reads it. */
  function stored(path: string): Pick<ProposalInput, 'document' | 'lines'> {
    const parsed = parseDocument(fixtureText(path), path);
    return {
      document: {
        country: parsed.country,
        type: parsed.type,
        documentNumber: parsed.documentNumber,
        amountCents: parsed.totals.totalCents,
        issueDate: new Date(parsed.issueDate),
        expirationDate: parsed.expirationDate === null ? null : new Date(parsed.expirationDate),
        createdAt: new Date(parsed.issueDate),
        withholdingTotalCents: parsed.totals.withholdingTotalCents,
        prepaidCents: parsed.prepaid?.amountCents ?? null,
        fiscalMetadata: parsed.metadata,
      },
      lines: parsed.lineItems.map((line) => ({
        ...line,
        adjustments: line.adjustments.map((adjustment) => ({
          ...adjustment,
          baseAmountCents: Number(adjustment.baseAmountCents),
          amountCents: Number(adjustment.amountCents),
          metadata: {},
        })),
      })),
    };
  }
  const sides = (journal: Awaited<ReturnType<typeof voucher>>) => ({
    debits: journal.erp_journal_entry_lines.reduce((sum, line) => sum + (line.debit_cents ?? 0), 0),
    credits:
      journal.erp_journal_entry_lines.reduce((sum, line) => sum + (line.credit_cents ?? 0), 0) +
      journal.payment_lines.reduce((sum, line) => sum + line.amount_cents, 0),
  });
  const installmentOf = (amountCents: bigint) => [{ number: 1, amountCents, dueDate: '2026-03-20' }];
  const service = (subtotalCents: bigint) => ({
    name: 'Servicio',
    code: null,
    quantity: '1',
    unitPriceCents: subtotalCents,
    subtotalCents,
    adjustments: [],
  });

  it('with the document allowances and charges of a DIAN invoice as their own lines', async () => {
    const { document, lines } = stored('dian/stenfrank-invoice_unsigned_dian_v2.xml');
    const journal = await voucher(document as DocumentFields, {
      lines,
      installments: installmentOf(document.amountCents),
    });
    // Lines 1,720,000.00 and taxes 342,060.00; allowances 59,000.00 and charges 20,000.00; payable 2,023,060.00.
    expect(sides(journal)).toEqual({ debits: 2_082_060_00, credits: 2_082_060_00 });
    const documentLevel = journal.erp_journal_entry_lines.filter((line) => line.metadata.document_level);
    expect(documentLevel.map((line) => [line.debit_cents, line.credit_cents])).toEqual([
      [null, 10_000_00],
      [null, 19_000_00],
      [null, 30_000_00],
      [15_000_00, null],
      [5_000_00, null],
    ]);
    expect(journal.erp_journal_entry_lines.some((line) => line.metadata.reason)).toBe(false);
    expect(journal.payment_lines.map((line) => line.amount_cents)).toEqual([2_023_060_00]);
  });

  it('with a CFDI whose total already has the withholdings taken off', async () => {
    for (const path of [
      'cfdi/cfdiutils-cfdi40-valid-ingreso.xml',
      'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml',
    ]) {
      const { document, lines } = stored(path);
      const journal = await voucher(document as DocumentFields, {
        lines,
        installments: installmentOf(document.amountCents),
      });
      const { debits, credits } = sides(journal);
      expect(debits, path).toBe(credits);
      expect(journal.payment_lines[0]?.amount_cents, path).toBe(Number(document.amountCents));
      expect(
        journal.erp_journal_entry_lines.some((line) => line.metadata.reason),
        path,
      ).toBe(false);
    }
  });

  it('with a prepaid amount credited to the advances account', async () => {
    const accounts = [
      ...CATALOG,
      { externalId: 'ba-1330', code: '133005', name: 'Anticipos', nature: 'debit' as const },
    ];
    const journal = await voucher(
      { ...colombian, amountCents: 119_000_00n, prepaidCents: 50_000_00n },
      {
        lines: [
          {
            name: 'Servicio',
            code: null,
            quantity: '1',
            unitPriceCents: 100_000_00n,
            subtotalCents: 100_000_00n,
            adjustments: [
              {
                type: 'tax',
                code: '01',
                rate: '0.19',
                ratePercentage: '19',
                baseAmountCents: 100_000_00,
                amountCents: 19_000_00,
                isInclusive: false,
                metadata: {},
              },
            ],
          },
        ],
        accounts,
        installments: installmentOf(69_000_00n),
      },
    );
    expect(sides(journal)).toEqual({ debits: 119_000_00, credits: 119_000_00 });
    const prepaid = journal.erp_journal_entry_lines.find((line) => line.metadata.prepaid);
    expect(prepaid).toMatchObject({ book_account_external_id: 'ba-1330', credit_cents: 50_000_00 });
    expect(journal.erp_journal_entry_lines.some((line) => line.metadata.reason)).toBe(false);
  });

  it('shows on its own line, for review, a difference the file does not explain', async () => {
    const journal = await voucher(
      { ...colombian, amountCents: 100_000_05n },
      { lines: [service(100_000_00n)], installments: installmentOf(100_000_05n) },
    );
    expect(sides(journal)).toEqual({ debits: 100_000_05, credits: 100_000_05 });
    const difference = journal.erp_journal_entry_lines.find((line) => line.metadata.reason);
    expect(difference).toMatchObject({
      debit_cents: 5,
      book_account_external_id: 'ba-5110',
      metadata: { reason: 'difference_to_total', account_source: 'vendor_default' },
    });
  });

  it("with an expense that has no line items: its amount on the vendor's default account", async () => {
    const journal = await voucher(
      { ...colombian, type: 'expense', amountCents: 250_000_00n },
      {
        installments: installmentOf(250_000_00n),
      },
    );
    expect(sides(journal)).toEqual({ debits: 250_000_00, credits: 250_000_00 });
    expect(journal.erp_journal_entry_lines).toEqual([
      expect.objectContaining({
        description: 'Amount of the document',
        book_account_external_id: 'ba-5110',
        debit_cents: 250_000_00,
        metadata: { reason: 'not_itemized', account_source: 'vendor_default' },
      }),
    ]);
  });
});
