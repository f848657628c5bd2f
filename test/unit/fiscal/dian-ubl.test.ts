import { describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureText, parseDocument, refusal, replaceOnce } from './fixtures.ts';

const INVOICE = 'dian/stenfrank-invoice_unsigned_dian_v2.xml';
const CREDIT_NOTE = 'dian/stenfrank-creditnote_signed_dian_v2.xml';
const UNSIGNED_CREDIT_NOTE = 'dian/stenfrank-creditnote_unsigned_dian_v2.xml';
const INVOICE_CUFE = 'e633d09279badff1414e7e00f0c9322c01879754c0349e2ea8acd357a474962e17729d393a8bb4094ff3f29dbf0e3af1';

describe('DIAN UBL 2.1 invoice (real fixture)', () => {
  const document = parseDocument(fixtureBytes(INVOICE), 'factura.xml');

  it('reads the header: number, own CUFE, dates, currency', () => {
    expect(document).toMatchObject({
      country: 'COL',
      format: 'dian-ubl-2.1',
      type: 'invoice',
      documentNumber: 'SETP990000008',
      fiscalReference: INVOICE_CUFE,
      issueDate: '2019-06-12T12:53:36-05:00',
      expirationDate: '2019-06-12T00:00:00-05:00',
      currency: 'COP',
      exchangeRate: null,
      purchaseOrder: '546326432432',
      references: [],
      payment: { form: '1', method: '41', dueDate: '2019-06-12' },
    });
  });

  it('keeps every total in exact cents', () => {
    expect(document.totals).toEqual({
      subtotalCents: 172_000_000n,
      taxTotalCents: 34_206_000n,
      withholdingTotalCents: 0n,
      totalCents: 202_306_000n,
    });
  });

  it('reads the supplier and the customer', () => {
    expect(document.supplier).toEqual({
      name: 'FACTURADOR DE EJEMPLO',
      identifierType: 'NIT',
      identifierNumber: '901210113',
      checkDigit: '3',
      email: 'sd_fistrib_facturaelectronica@dian.gov.co',
      phone: '9712311',
      address: 'CR 9 A N0 99 - 07 OF 802, Medellín, Antioquia, CO',
    });
    expect(document.customer).toMatchObject({
      name: 'ADQUIRIENTE DE EJEMPLO',
      identifierType: 'NIT',
      identifierNumber: '901210113',
    });
  });

  it('reads the six lines with their discounts, charges and taxes', () => {
    expect(document.lineItems).toHaveLength(6);
    const [first] = document.lineItems;
    expect(first).toMatchObject({
      position: 1,
      name: 'Base para TV',
      code: 'AOHV84-225',
      quantity: '1.000000',
      unitCode: 'EA',
      unitPriceCents: 30_000_000n,
      subtotalCents: 25_000_000n,
      totalCents: 29_750_000n,
      metadata: { unitPrice: '300000.00', standardItemId: { id: '6543542313534' } },
    });
    expect(first?.adjustments).toEqual([
      {
        type: 'discount',
        code: null,
        name: 'Discount',
        rate: '0.25',
        ratePercentage: '25',
        baseAmountCents: 30_000_000n,
        amountCents: 5_000_000n,
        isInclusive: false,
      },
      {
        type: 'tax',
        code: '01',
        name: 'IVA',
        rate: '0.19',
        ratePercentage: '19',
        baseAmountCents: 25_000_000n,
        amountCents: 4_750_000n,
        isInclusive: false,
      },
    ]);
    expect(document.lineItems[2]?.adjustments[0]).toMatchObject({
      type: 'charge',
      name: 'Cargo',
      amountCents: 1_000_000n,
    });
    // The plastic-bag tax is a fixed amount per unit: no rate.
    expect(document.lineItems[5]?.adjustments).toEqual([
      {
        type: 'tax',
        code: '22',
        name: 'Impuesto sobre las bolsas',
        rate: null,
        ratePercentage: null,
        baseAmountCents: 0n,
        amountCents: 6000n,
        isInclusive: false,
      },
    ]);
    expect(document.lineItems[1]?.metadata).toMatchObject({
      freeOfCharge: true,
      referencePrice: { amount: '100000.00', typeCode: '03' },
    });
  });

  it('keeps the root notes and the traceability facts', () => {
    expect(document.finalNotes).toEqual([
      'SETP9900000082019-06-1212:53:36-05:001720000.00010.00020.00030.002023060.009012101133901210113dd85db55545bd6566f36b0fd3be9fd8555c36e2',
    ]);
    expect(document.metadata).toMatchObject({
      documentTypeCode: '01',
      environment: 'test',
      signed: false,
      fiscalReferenceScheme: 'CUFE-SHA384',
      dianExtensionsNamespace: 'http://www.dian.gov.co/contratos/facturaelectronica/v1/Structures',
      dueDateInHeader: '2019-04-04',
      paymentTermsDays: '60',
      withholdingsDeductedFromPayable: false,
      monetaryTotal: { AllowanceTotalAmount: '59000.00', ChargeTotalAmount: '20000.00', PayableAmount: '2023060.00' },
    });
  });

  it('gives the same result for text and bytes', () => {
    expect(parseDocument(fixtureText(INVOICE), 'factura.xml')).toEqual(document);
  });

  it('accepts the current DIAN extension namespace and an upper-case CUFE', () => {
    const text = fixtureText(INVOICE)
      .replace(
        'http://www.dian.gov.co/contratos/facturaelectronica/v1/Structures',
        'dian:gov:co:facturaelectronica:Structures-2-1',
      )
      .replace(`>${INVOICE_CUFE}<`, `>${INVOICE_CUFE.toUpperCase()}<`);
    const parsed = parseDocument(text, 'factura.xml');
    expect(parsed.fiscalReference).toBe(INVOICE_CUFE);
    expect(parsed.metadata['dianExtensionsNamespace']).toBe('dian:gov:co:facturaelectronica:Structures-2-1');
  });
});

describe('DIAN UBL 2.1 credit note (real fixture)', () => {
  const document = parseDocument(fixtureBytes(CREDIT_NOTE), 'nota.xml');

  it('reads its own CUDE, not the CUFE of the invoice it corrects', () => {
    expect(document).toMatchObject({
      type: 'credit_note',
      documentNumber: 'NC3',
      fiscalReference:
        'da3af05f963db5cff231d1171a810f5f55eb08615f22dc239fff55fa927be5cf6caade8bfa4f1f70c067dbb9ed30c009',
      issueDate: '2019-06-21T09:15:23-05:00',
      expirationDate: '2019-06-30T00:00:00-05:00',
      currency: 'USD',
      exchangeRate: { rate: '3100', sourceCurrency: 'USD', targetCurrency: 'COP', date: '2019-06-21' },
      purchaseOrder: '13.09.2018--GMO',
      payment: { form: '2', method: '41', dueDate: '2019-06-30' },
      metadata: { fiscalReferenceScheme: 'CUDE-SHA384', signed: true, documentTypeCode: '91' },
    });
    expect(document.references).toEqual([
      {
        documentNumber: 'SETP990000015',
        fiscalReference:
          'e988c01fe2901d1bbf37911758961f7083b6e5c58400552b309549d6fbaa6402c8ff67b51d3c6f4ed478dc94b0c8b0fc',
        issueDate: '2019-06-21',
        relation: '1',
      },
    ]);
  });

  it('reads totals, parties and the discounted line', () => {
    expect(document.totals).toEqual({
      subtotalCents: 1_260_006n,
      taxTotalCents: 239_401n,
      withholdingTotalCents: 0n,
      totalCents: 1_499_407n,
    });
    expect(document.supplier).toMatchObject({
      name: 'FACTURADOR DE EJEMPLO',
      identifierType: 'NIT',
      identifierNumber: '800197268',
      checkDigit: '4',
      email: 'marciaz@sistemas.net',
    });
    expect(document.customer).toMatchObject({
      name: 'ADQUIRIENTE DE EJEMPLO',
      identifierNumber: '900108281',
      checkDigit: '3',
    });
    expect(document.lineItems).toHaveLength(1);
    expect(document.lineItems[0]).toMatchObject({
      name: 'Articulo 1 Prueba',
      unitPriceCents: 1_890_000n,
      subtotalCents: 1_260_006n,
      totalCents: 1_499_407n,
    });
    expect(document.lineItems[0]?.adjustments[0]).toEqual({
      type: 'discount',
      code: null,
      name: 'Descuento por cliente frecuente',
      rate: '0.3333',
      ratePercentage: '33.33',
      baseAmountCents: 1_890_000n,
      amountCents: 629_994n,
      isInclusive: false,
    });
  });

  it('refuses the unsigned credit note whose CUDE is empty', () => {
    expect(refusal(fixtureBytes(UNSIGNED_CREDIT_NOTE), 'nc1000.xml')).toMatchObject({
      code: 'invalid_fiscal_reference',
      file: 'nc1000.xml',
      element: 'CreditNote/cbc:UUID',
    });
  });

  it('accepts withholdings whether or not the issuer deducted them from PayableAmount', () => {
    const withholding =
      '<cac:WithholdingTaxTotal><cbc:TaxAmount currencyID="USD">315.00</cbc:TaxAmount><cac:TaxSubtotal>' +
      '<cbc:TaxableAmount currencyID="USD">12600.06</cbc:TaxableAmount><cbc:TaxAmount currencyID="USD">315.00</cbc:TaxAmount>' +
      '<cac:TaxCategory><cbc:Percent>2.50</cbc:Percent><cac:TaxScheme><cbc:ID>06</cbc:ID><cbc:Name>ReteRenta</cbc:Name></cac:TaxScheme></cac:TaxCategory>' +
      '</cac:TaxSubtotal></cac:WithholdingTaxTotal>';
    const withWithholding = replaceOnce(
      fixtureText(CREDIT_NOTE),
      '<cac:LegalMonetaryTotal>',
      `${withholding}<cac:LegalMonetaryTotal>`,
    );
    const kept = parseDocument(withWithholding, 'nota.xml');
    expect(kept.totals).toMatchObject({ withholdingTotalCents: 31_500n, totalCents: 1_499_407n });
    expect(kept.metadata['withholdingsDeductedFromPayable']).toBe(false);

    const deducted = parseDocument(
      replaceOnce(
        withWithholding,
        '<cbc:PayableAmount currencyID="USD">14994.07',
        '<cbc:PayableAmount currencyID="USD">14679.07',
      ),
      'nota.xml',
    );
    expect(deducted.totals.totalCents).toBe(1_467_907n);
    expect(deducted.metadata['withholdingsDeductedFromPayable']).toBe(true);
  });

  it('reads a debit note (DebitNoteLine, RequestedMonetaryTotal) built from it', () => {
    const debitNote = fixtureText(CREDIT_NOTE)
      .replaceAll('CreditNote', 'DebitNote')
      .replaceAll('CreditedQuantity', 'DebitedQuantity')
      .replaceAll('LegalMonetaryTotal', 'RequestedMonetaryTotal')
      .replace('<cbc:DebitNoteTypeCode>91<', '<cbc:DebitNoteTypeCode>92<');
    const parsed = parseDocument(debitNote, 'nd.xml');
    expect(parsed).toMatchObject({ type: 'debit_note', documentNumber: 'NC3', metadata: { documentTypeCode: '92' } });
    expect(parsed.totals.totalCents).toBe(1_499_407n);
    expect(parsed.lineItems[0]?.quantity).toBe('1.000000');
  });
});

describe('DIAN UBL 2.1 files that are refused', () => {
  const invoice = fixtureText(INVOICE);
  const creditNote = fixtureText(CREDIT_NOTE);

  it('refuses truncated XML', () => {
    const error = refusal(invoice.slice(0, Math.floor(invoice.length / 2)), 'cortada.xml');
    expect(error).toMatchObject({ code: 'malformed_xml', file: 'cortada.xml', element: null });
    expect(error.message).toContain('cortada.xml');
  });

  it('refuses an Invoice root in the wrong namespace', () => {
    const wrong = replaceOnce(
      invoice,
      'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"',
      'xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"',
    );
    expect(refusal(wrong, 'f.xml')).toMatchObject({ code: 'unsupported_document', file: 'f.xml', element: 'Invoice' });
    const none = replaceOnce(invoice, 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"', '');
    expect(refusal(none, 'f.xml')).toMatchObject({ code: 'unsupported_document', file: 'f.xml', element: 'Invoice' });
  });

  it('refuses an invoice without its CUFE', () => {
    const missing = replaceOnce(invoice, /<cbc:UUID schemeID="2" schemeName="CUFE-SHA384">[0-9a-f]+<\/cbc:UUID>/, '');
    const error = refusal(missing, 'f.xml');
    expect(error).toMatchObject({ code: 'missing_element', file: 'f.xml', element: 'Invoice/cbc:UUID' });
    expect(error.message).toContain('CUFE');
  });

  it('does not take the CUFE of the referenced invoice when a credit note lacks its own CUDE', () => {
    const missing = replaceOnce(
      creditNote,
      /<cbc:UUID schemeID="2" schemeName="CUDE-SHA384">[0-9a-f]+<\/cbc:UUID>/,
      '',
    );
    expect(refusal(missing, 'nc.xml')).toMatchObject({
      code: 'missing_element',
      file: 'nc.xml',
      element: 'CreditNote/cbc:UUID',
    });
  });

  it('refuses a malformed CUFE', () => {
    for (const bad of [INVOICE_CUFE.slice(1), `${INVOICE_CUFE.slice(1)}g`, 'abc']) {
      const error = refusal(replaceOnce(invoice, `>${INVOICE_CUFE}<`, `>${bad}<`), 'f.xml');
      expect(error).toMatchObject({ code: 'invalid_fiscal_reference', file: 'f.xml', element: 'Invoice/cbc:UUID' });
    }
  });

  it('refuses a PayableAmount that does not add up', () => {
    const bad = replaceOnce(
      invoice,
      '<cbc:PayableAmount currencyID="COP">2023060.00',
      '<cbc:PayableAmount currencyID="COP">2033060.00',
    );
    const error = refusal(bad, 'f.xml');
    expect(error).toMatchObject({
      code: 'totals_mismatch',
      file: 'f.xml',
      element: 'Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount',
    });
    expect(error.message).toContain('2023060.00');
  });

  it('refuses lines that do not add up to LineExtensionAmount', () => {
    const bad = replaceOnce(
      invoice,
      '<cbc:LineExtensionAmount currencyID="COP">20000.00',
      '<cbc:LineExtensionAmount currencyID="COP">20500.00',
    );
    expect(refusal(bad, 'f.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'f.xml',
      element: 'Invoice/cac:LegalMonetaryTotal/cbc:LineExtensionAmount',
    });
  });

  it('refuses a TaxTotal whose amount differs from its subtotals', () => {
    const bad = replaceOnce(
      invoice,
      '<cac:TaxTotal>\n    <cbc:TaxAmount currencyID="COP">342000.00',
      '<cac:TaxTotal>\n    <cbc:TaxAmount currencyID="COP">343000.00',
    );
    expect(refusal(bad, 'f.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'f.xml',
      element: 'Invoice/cac:TaxTotal[1]/cbc:TaxAmount',
    });
  });

  it('tolerates one cent of rounding per line', () => {
    // Six lines: a PayableAmount 6 cents off passes, 7 cents off does not.
    const within = replaceOnce(
      invoice,
      '<cbc:PayableAmount currencyID="COP">2023060.00',
      '<cbc:PayableAmount currencyID="COP">2023060.06',
    );
    expect(parseDocument(within, 'f.xml').totals.totalCents).toBe(202_306_006n);
    const beyond = replaceOnce(
      invoice,
      '<cbc:PayableAmount currencyID="COP">2023060.00',
      '<cbc:PayableAmount currencyID="COP">2023060.07',
    );
    expect(refusal(beyond, 'f.xml').code).toBe('totals_mismatch');
  });

  it('refuses an amount that is not a decimal number', () => {
    const bad = replaceOnce(
      invoice,
      '<cbc:PayableAmount currencyID="COP">2023060.00',
      '<cbc:PayableAmount currencyID="COP">2.023.060,00',
    );
    expect(refusal(bad, 'f.xml')).toMatchObject({
      code: 'invalid_value',
      file: 'f.xml',
      element: 'Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount',
    });
  });

  it('refuses an impossible issue date', () => {
    const bad = replaceOnce(
      invoice,
      '<cbc:IssueDate>2019-06-12</cbc:IssueDate>',
      '<cbc:IssueDate>2019-02-30</cbc:IssueDate>',
    );
    expect(refusal(bad, 'f.xml')).toMatchObject({
      code: 'invalid_value',
      file: 'f.xml',
      element: 'Invoice/cbc:IssueDate',
    });
  });

  it('refuses an invoice without lines', () => {
    const noLines = invoice.replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, '');
    expect(refusal(noLines, 'f.xml')).toMatchObject({
      code: 'missing_element',
      file: 'f.xml',
      element: 'Invoice/cac:InvoiceLine',
    });
  });

  it('refuses a missing line amount and names the line', () => {
    const bad = replaceOnce(
      invoice,
      '<cbc:LineExtensionAmount currencyID="COP">40000.00</cbc:LineExtensionAmount>',
      '',
    );
    expect(refusal(bad, 'f.xml')).toMatchObject({
      code: 'missing_element',
      file: 'f.xml',
      element: 'Invoice/cac:InvoiceLine[5]/cbc:LineExtensionAmount',
    });
  });

  it('refuses a DOCTYPE with an external entity without reading it', () => {
    const xxe = replaceOnce(
      invoice,
      '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
      '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
    ).replace('<cbc:Note>', '<cbc:Note>&xxe;');
    const error = refusal(xxe, 'xxe.xml');
    expect(error).toMatchObject({ code: 'dtd_not_allowed', file: 'xxe.xml', element: '!DOCTYPE' });
    expect(error.message).not.toContain('root:');
  });
});

describe('DIAN PrepaidAmount: both ways issuers write PayableAmount', () => {
  const invoice = fixtureText(INVOICE);
  /** The real invoice (total 2023060.00) with a PrepaidAmount and the given PayableAmount. */
  const withPrepaid = (prepaid: string, payable: string) =>
    replaceOnce(
      invoice,
      '<cbc:PayableAmount currencyID="COP">2023060.00</cbc:PayableAmount>',
      `<cbc:PrepaidAmount currencyID="COP">${prepaid}</cbc:PrepaidAmount><cbc:PayableAmount currencyID="COP">${payable}</cbc:PayableAmount>`,
    );

  it('has no prepaid amount in the real invoice', () => {
    expect(parseDocument(invoice, 'f.xml').prepaid).toBeNull();
  });

  it('reads PayableAmount = total − prepaid, keeping the total as the amount', () => {
    const document = parseDocument(withPrepaid('500000.00', '1523060.00'), 'f.xml');
    expect(document.prepaid).toEqual({ amountCents: 50_000_000n, convention: 'payable_net_of_prepaid' });
    expect(document.totals.totalCents).toBe(202_306_000n);
  });

  it('reads PayableAmount as the total when the issuer did not subtract the prepaid amount', () => {
    const document = parseDocument(withPrepaid('500000.00', '2023060.00'), 'f.xml');
    expect(document.prepaid).toEqual({ amountCents: 50_000_000n, convention: 'payable_includes_prepaid' });
    expect(document.totals.totalCents).toBe(202_306_000n);
  });

  it('still refuses a PayableAmount that matches neither convention, naming both', () => {
    const error = refusal(withPrepaid('500000.00', '1800000.00'), 'f.xml');
    expect(error).toMatchObject({
      code: 'totals_mismatch',
      element: 'Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount',
    });
    expect(error.message).toContain('2023060.00');
    expect(error.message).toContain('1523060.00 once PrepaidAmount is subtracted');
  });

  it('refuses a prepaid amount larger than the total', () => {
    expect(refusal(withPrepaid('2500000.00', '2023060.00'), 'f.xml')).toMatchObject({
      code: 'totals_mismatch',
      element: 'Invoice/cac:LegalMonetaryTotal/cbc:PrepaidAmount',
    });
  });

  it('combines with withholdings the issuer deducted', () => {
    const withholding =
      '<cac:WithholdingTaxTotal><cbc:TaxAmount currencyID="COP">43000.00</cbc:TaxAmount></cac:WithholdingTaxTotal>';
    const xml = replaceOnce(
      withPrepaid('500000.00', '1480060.00'),
      '<cac:LegalMonetaryTotal>',
      `${withholding}<cac:LegalMonetaryTotal>`,
    );
    const document = parseDocument(xml, 'f.xml');
    expect(document.prepaid?.convention).toBe('payable_net_of_prepaid');
    expect(document.metadata['withholdingsDeductedFromPayable']).toBe(true);
    expect(document.totals.totalCents).toBe(198_006_000n);
  });
});

describe('DIAN PaymentExchangeRate: from the document currency to COP', () => {
  const creditNote = fixtureText(CREDIT_NOTE);
  const invoice = fixtureText(INVOICE);
  const codes = (source: string, target: string) =>
    replaceOnce(
      replaceOnce(creditNote, '<cbc:SourceCurrencyCode>USD<', `<cbc:SourceCurrencyCode>${source}<`),
      '<cbc:TargetCurrencyCode>COP<',
      `<cbc:TargetCurrencyCode>${target}<`,
    );

  it('refuses a rate stated the other way round (COP → USD on a USD note)', () => {
    const error = refusal(codes('COP', 'USD'), 'nc.xml');
    expect(error).toMatchObject({
      code: 'exchange_rate_mismatch',
      file: 'nc.xml',
      element: 'CreditNote/cac:PaymentExchangeRate',
    });
    expect(error.message).toContain('other way round (COP → USD)');
    expect(error.message).toContain('USD → COP');
  });

  it('refuses a rate between other currencies', () => {
    const error = refusal(codes('USD', 'EUR'), 'nc.xml');
    expect(error.code).toBe('exchange_rate_mismatch');
    expect(error.message).toContain('between other currencies (USD → EUR)');
  });

  it('refuses a rate that is zero or not a number', () => {
    for (const bad of ['0.00', '-3100', 'tres mil']) {
      const xml = replaceOnce(creditNote, '<cbc:CalculationRate>3100<', `<cbc:CalculationRate>${bad}<`);
      expect(refusal(xml, 'nc.xml')).toMatchObject({
        code: 'invalid_value',
        element: 'CreditNote/cac:PaymentExchangeRate',
      });
    }
  });

  it('keeps a rate without its date', () => {
    const xml = replaceOnce(
      creditNote,
      /<cbc:Date>2019-06-21<\/cbc:Date>\s*<\/cac:PaymentExchangeRate>/,
      '</cac:PaymentExchangeRate>',
    );
    expect(parseDocument(xml, 'nc.xml').exchangeRate).toEqual({
      rate: '3100',
      sourceCurrency: 'USD',
      targetCurrency: 'COP',
      date: null,
    });
  });

  it('drops the identity rate of a COP invoice (the real one states COP → COP 1.00)', () => {
    const document = parseDocument(invoice, 'f.xml');
    expect(document.exchangeRate).toBeNull();
    expect(document.statedExchangeRate).toBeNull();
  });

  it('keeps the rate a COP invoice priced in dollars states (COP → USD) as information, converting nothing', () => {
    const toDollars = replaceOnce(
      replaceOnce(invoice, '<cbc:TargetCurrencyCode>COP<', '<cbc:TargetCurrencyCode>USD<'),
      '<cbc:CalculationRate>1.00<',
      '<cbc:CalculationRate>0.00025<',
    );
    const document = parseDocument(toDollars, 'f.xml');
    expect(document).toMatchObject({ currency: 'COP', exchangeRate: null, totals: { totalCents: 202_306_000n } });
    expect(document.statedExchangeRate).toEqual({
      rate: '0.00025',
      sourceCurrency: 'COP',
      targetCurrency: 'USD',
      date: '2019-02-18',
    });
  });

  it('refuses what contradicts itself: COP worth other than 1 COP, a foreign-currency note without a rate', () => {
    const selfRate = replaceOnce(invoice, '<cbc:CalculationRate>1.00<', '<cbc:CalculationRate>3100<');
    const error = refusal(selfRate, 'f.xml');
    expect(error).toMatchObject({ code: 'exchange_rate_mismatch', element: 'Invoice/cac:PaymentExchangeRate' });
    expect(error.message).toContain('one COP cannot be worth 3100 COP');

    const withoutRate = replaceOnce(creditNote, /<cac:PaymentExchangeRate>[\s\S]*?<\/cac:PaymentExchangeRate>/, '');
    expect(refusal(withoutRate, 'nc.xml')).toMatchObject({
      code: 'missing_element',
      element: 'CreditNote/cac:PaymentExchangeRate',
      message: expect.stringContaining('a document in USD must state its exchange rate to COP'),
    });
  });
});

describe('DIAN formats older than UBL 2.1 are named when refused', () => {
  const invoice = fixtureText(INVOICE);

  it('names a 40-character SHA-1 CUFE as the pre-2019 format', () => {
    const error = refusal(replaceOnce(invoice, `>${INVOICE_CUFE}<`, `>${'a1b2c3d4e5'.repeat(4)}<`), 'viejo.xml');
    expect(error).toMatchObject({ code: 'invalid_fiscal_reference', element: 'Invoice/cbc:UUID' });
    expect(error.message).toContain('SHA-1 CUFE');
    expect(error.message).toContain('before 2019');
  });

  it('names the 2017 DIAN v1 namespace', () => {
    const v1 = replaceOnce(
      invoice,
      'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"',
      'xmlns="http://www.dian.gov.co/contratos/facturaelectronica/v1"',
    );
    const error = refusal(v1, 'v1.xml');
    expect(error).toMatchObject({ code: 'unsupported_document', element: 'Invoice' });
    expect(error.message).toContain('2017 DIAN v1 format (http://www.dian.gov.co/contratos/facturaelectronica/v1)');
  });
});
