// Where each line's account comes from: the first evidence that names an active account, never code order.
import { describe, expect, it } from 'vitest';
import type { LineItemAdjustment } from '../../../db/documents/line-item.entity.ts';
import {
  proposeJournal,
  taughtBy,
  type ProposalInput,
  type TaughtRule,
} from '../../../services/accounting/journal-proposal.ts';
import { crossWithOrder, type OrderForCrossing } from '../../../services/accounting/order-crossing.ts';

const ACCOUNTS: ProposalInput['accounts'] = [
  { externalId: 'caja', code: '110505', name: 'Caja general', nature: 'debit' },
  { externalId: 'mercancias', code: '143505', name: 'Mercancías', nature: 'debit' },
  { externalId: 'proveedores', code: '220505', name: 'Proveedores', nature: 'credit' },
  { externalId: 'retefuente', code: '236540', name: 'Retención en la fuente', nature: 'credit' },
  { externalId: 'iva', code: '240802', name: 'IVA descontable', nature: 'debit' },
  { externalId: 'inc', code: '511595', name: 'INC', nature: 'debit' },
  { externalId: 'vigilancia', code: '513505', name: 'Aseo y vigilancia', nature: 'debit' },
  { externalId: 'diversos', code: '519595', name: 'Diversos', nature: 'debit' },
];

const tax = (fields: Partial<LineItemAdjustment> & Pick<LineItemAdjustment, 'amountCents'>): LineItemAdjustment => ({
  type: 'tax',
  code: '01',
  rate: '0.19',
  ratePercentage: '19',
  baseAmountCents: 100_000_00,
  isInclusive: false,
  metadata: {},
  ...fields,
});

const line = (name: string, code: string | null, adjustments: LineItemAdjustment[] = []) => ({
  name,
  code,
  quantity: '1',
  unitPriceCents: 100_000_00n,
  subtotalCents: 100_000_00n,
  adjustments,
});

const rule = (matchKind: TaughtRule['matchKind'], matchKey: string, account: string): TaughtRule => ({
  matchKind,
  matchKey,
  bookAccountExternalId: account,
  source: 'classification',
  sourceReference: 'step-1',
});

function propose(overrides: Partial<ProposalInput> & Pick<ProposalInput, 'lines'>) {
  const owed = overrides.lines.reduce(
    (sum, item) =>
      sum +
      item.subtotalCents +
      BigInt(
        (item.adjustments ?? []).reduce(
          (taxes, adjustment) => taxes + (adjustment.type === 'tax' ? adjustment.amountCents : 0),
          0,
        ),
      ),
    0n,
  );
  return proposeJournal({
    document: {
      country: 'COL',
      type: 'invoice',
      documentNumber: 'FE-1',
      amountCents: owed,
      issueDate: new Date('2026-11-20T10:00:00-05:00'),
      expirationDate: null,
      createdAt: new Date('2026-11-20T10:00:00-05:00'),
    },
    products: [],
    taxes: [],
    accounts: ACCOUNTS,
    vendor: null,
    installments: [{ number: 1, amountCents: owed, dueDate: '2026-11-20' }],
    postedAt: new Date('2026-11-21T10:00:00-05:00'),
    ...overrides,
  });
}

const accountsOf = (proposal: ReturnType<typeof propose>) =>
  proposal.journal?.erp_journal_entry_lines.map((item) => [
    item.book_account_external_id,
    item.metadata.account_source,
  ]);

describe('the account of a line', () => {
  it('comes from the product, then the supplier’s taught rule by product, then by description, then the vendor', () => {
    const vendor = { externalId: 'v-1', bookAccountExternalId: 'diversos' };
    const products = [{ externalId: 'p-1', code: 'TOR-3', bookAccountExternalId: 'mercancias' }];
    const rules = [rule('product', 'SRV-9', 'vigilancia'), rule('description', 'aseo de oficinas', 'vigilancia')];
    const proposal = propose({
      lines: [
        line('Tornillo', 'TOR-3'),
        line('Vigilancia', 'SRV-9'),
        line('Aseo de Oficinas', null),
        line('Otro', null),
      ],
      products,
      rules,
      vendor,
    });
    expect(accountsOf(proposal)).toEqual([
      ['mercancias', 'product'],
      ['vigilancia', 'company_rule'],
      ['vigilancia', 'company_rule'],
      ['diversos', 'vendor_default'],
    ]);
  });

  it('never takes an account the catalog does not have active', () => {
    const proposal = propose({
      lines: [line('Tornillo', 'TOR-3')],
      products: [{ externalId: 'p-1', code: 'TOR-3', bookAccountExternalId: 'retired' }],
      vendor: { externalId: 'v-1', bookAccountExternalId: 'diversos' },
    });
    expect(accountsOf(proposal)).toEqual([['diversos', 'vendor_default']]);
  });

  it('asks a person when nothing names one, never the first debit account by code', () => {
    const proposal = propose({ lines: [line('Servicio de vigilancia', null)] });
    expect(proposal).toEqual({
      journal: null,
      status: 'awaiting_classification',
      unplaced: [
        { description: 'Servicio de vigilancia', productCode: null, debitCents: 100_000_00, creditCents: null },
      ],
    });
    // A credit account is no answer; a debit one places the line, and says who chose it.
    const credit = propose({
      lines: [line('Servicio de vigilancia', null)],
      decisions: { bookAccount: { accountExternalId: 'proveedores', stepId: 's-1', by: 'ana@example.co' } },
    });
    expect(credit.status).toBe('awaiting_classification');
    const decided = propose({
      lines: [line('Servicio de vigilancia', 'SRV-1')],
      decisions: { bookAccount: { accountExternalId: 'vigilancia', stepId: 's-1', by: 'ana@example.co' } },
    });
    expect(decided.journal?.erp_journal_entry_lines[0]?.metadata).toEqual({
      account_source: 'classification',
      classification_step: 's-1',
      decided_by: 'ana@example.co',
    });
    expect(taughtBy(decided.journal!, [line('Servicio de vigilancia', 'SRV-1')])).toEqual([
      { matchKind: 'product', matchKey: 'SRV-1', bookAccountExternalId: 'vigilancia' },
      { matchKind: 'description', matchKey: 'servicio de vigilancia', bookAccountExternalId: 'vigilancia' },
    ]);
  });

  it('puts a rounding difference on the largest line’s account, not on a guessed one', () => {
    const lines = [line('Tornillo', 'TOR-3')];
    const proposal = proposeJournal({
      document: {
        country: 'COL',
        type: 'invoice',
        documentNumber: 'FE-2',
        amountCents: 100_000_01n,
        issueDate: null,
        expirationDate: null,
        createdAt: new Date('2026-11-20T10:00:00-05:00'),
      },
      lines,
      products: [{ externalId: 'p-1', code: 'TOR-3', bookAccountExternalId: 'mercancias' }],
      taxes: [],
      accounts: ACCOUNTS,
      vendor: null,
      installments: [{ number: 1, amountCents: 100_000_01n, dueDate: '2026-11-20' }],
      postedAt: new Date('2026-11-21T10:00:00-05:00'),
    });
    expect(proposal.journal?.erp_journal_entry_lines[1]).toMatchObject({
      book_account_external_id: 'mercancias',
      debit_cents: 1,
      metadata: { reason: 'rounding', account_source: 'rounding' },
    });
  });
});

describe('the account of a tax', () => {
  const taxes: ProposalInput['taxes'] = [
    { externalId: 't-inc', type: 'inc', rate: '0.19', isWithholding: false, bookAccountExternalId: 'inc' },
    { externalId: 't-rf', type: 'retefuente', rate: '0.19', isWithholding: true, bookAccountExternalId: 'retefuente' },
    { externalId: 't-iva', type: 'iva', rate: '0.19', isWithholding: false, bookAccountExternalId: 'iva' },
  ];
  const vendor = { externalId: 'v-1', bookAccountExternalId: 'diversos' };

  it('matches type, withholding or not, and rate: an IVA at 19% is neither an INC nor a withholding at 19%', () => {
    const proposal = propose({ lines: [line('Servicio', null, [tax({ amountCents: 19_000_00 })])], taxes, vendor });
    expect(proposal.journal?.erp_journal_entry_lines[1]).toMatchObject({
      book_account_external_id: 'iva',
      metadata: { tax_external_id: 't-iva', account_source: 'tax' },
    });
    const withoutIva = propose({
      lines: [line('Servicio', null, [tax({ amountCents: 19_000_00 })])],
      taxes: taxes.slice(0, 2),
      vendor,
    });
    expect(withoutIva).toMatchObject({
      status: 'awaiting_catalog',
      missing: [{ catalog: 'taxes', role: 'tax', description: expect.stringContaining('IVA 19%') }],
    });
  });

  it('needs no account for a tax of no amount', () => {
    const proposal = propose({
      lines: [line('Servicio', null, [tax({ code: '03', rate: '0', ratePercentage: '0', amountCents: 0 })])],
      vendor,
    });
    expect(proposal.status).toBe('ready');
    expect(proposal.journal?.erp_journal_entry_lines).toHaveLength(1);
  });
});

describe('purchase-order crossing', () => {
  const order: OrderForCrossing = {
    externalId: 'po-1',
    number: 'OC-1',
    vendorExternalId: 'v-1',
    status: 'open',
    isActive: true,
    lines: [
      {
        externalId: 'l-1',
        productExternalId: 'p-1',
        description: 'Tornillo',
        quantity: '10',
        unitPriceCents: 1_000_00,
        pendingQuantity: '10',
      },
      {
        externalId: 'l-2',
        productExternalId: null,
        description: 'Flete a obra',
        quantity: '1',
        unitPriceCents: 50_000_00,
        pendingQuantity: '0.5',
      },
    ],
  };
  const invoiced = (quantity: string, unitPriceCents: number, productExternalId: string | null = 'p-1') => ({
    index: 0,
    description: 'Tornillo 3"',
    productExternalId,
    quantity,
    unitPriceCents,
  });

  it('crosses by product within the pending quantity and the price tolerance', () => {
    expect(crossWithOrder(order, 'v-1', [invoiced('10', 1_000_00)], 0).crossed).toHaveLength(1);
    expect(crossWithOrder(order, 'v-1', [invoiced('4', 1_040_00)], 5).crossed).toHaveLength(1);
    expect(crossWithOrder(order, 'v-1', [invoiced('4', 1_060_00)], 5).mismatches).toEqual([
      { index: 0, text: 'unit price 1,060.00 invoiced, 1,000.00 on OC-1 line 1' },
    ]);
  });

  it('crosses by description, and counts what two invoice lines take from one order line', () => {
    const freight = {
      index: 1,
      description: 'FLETE a  obra',
      productExternalId: null,
      quantity: '0.5',
      unitPriceCents: 50_000_00,
    };
    expect(crossWithOrder(order, 'v-1', [freight], 0).crossed.map((crossed) => crossed.orderLine.externalId)).toEqual([
      'l-2',
    ]);
    const twice = crossWithOrder(order, 'v-1', [invoiced('6', 1_000_00), { ...invoiced('6', 1_000_00), index: 1 }], 0);
    expect(twice.crossed).toHaveLength(1);
    expect(twice.mismatches).toEqual([{ index: 1, text: '6 units invoiced, 4 pending on OC-1 line 1' }]);
  });

  it('crosses nothing with an order of another vendor, or a closed one', () => {
    expect(crossWithOrder(order, 'v-2', [invoiced('1', 1_000_00)], 0).mismatches).toEqual([
      { index: null, text: 'OC-1 is an order of another vendor (v-1)' },
    ]);
    expect(crossWithOrder({ ...order, status: 'closed' }, 'v-1', [invoiced('1', 1_000_00)], 0).mismatches).toEqual([
      { index: null, text: 'OC-1 is closed' },
    ]);
  });

  it('waits for a review of a line beyond its order, and accounts it as direct once approved', () => {
    const input = {
      lines: [
        { ...line('Tornillo 3"', 'TOR-3'), quantity: '60', unitPriceCents: 1_000_00n, subtotalCents: 60_000_00n },
      ],
      products: [{ externalId: 'p-1', code: 'TOR-3', bookAccountExternalId: 'mercancias' }],
      vendor: { externalId: 'v-1', bookAccountExternalId: null },
      order,
    };
    const documentWithOrder = {
      country: 'COL' as const,
      type: 'invoice' as const,
      documentNumber: 'FE-3',
      amountCents: 60_000_00n,
      issueDate: null,
      expirationDate: null,
      createdAt: new Date('2026-11-20T10:00:00-05:00'),
      purchaseOrder: 'OC-1',
    };
    const base = {
      ...input,
      document: documentWithOrder,
      taxes: [],
      accounts: ACCOUNTS,
      installments: [{ number: 1, amountCents: 60_000_00n, dueDate: '2026-11-20' }],
      postedAt: new Date('2026-11-21T10:00:00-05:00'),
    };
    expect(proposeJournal(base)).toEqual({
      journal: null,
      status: 'awaiting_order_review',
      mismatches: [{ index: 0, text: '60 units invoiced, 10 pending on OC-1 line 1' }],
    });
    const approved = proposeJournal({ ...base, decisions: { orderReview: { approved: true, stepId: 's-2' } } });
    expect(approved.journal?.erp_journal_entry_lines[0]).toMatchObject({
      source: 'agent',
      purchase_order_line_external_id: null,
      book_account_external_id: 'mercancias',
      metadata: {
        account_source: 'product',
        purchase_order_review: { approved: true, mismatch: '60 units invoiced, 10 pending on OC-1 line 1' },
      },
    });
  });
});
