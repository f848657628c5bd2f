import { describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureText, parseComplement, parseDocument, refusal, replaceOnce } from './fixtures.ts';

const CFDIUTILS_INGRESO = 'cfdi/cfdiutils-cfdi40-valid-ingreso.xml';
const SATCFDI_INGRESO = 'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml';
const SATCFDI_PAGO = 'cfdi/satcfdi-pago_he951128469_ingreso_iva16_stamped.xml';
const UNSTAMPED_PAGO = 'cfdi/cfdiutils-created-cfdi40-pago20-valid-unstamped.xml';
const UNSTAMPED_EGRESO = 'cfdi/gobl-credit-note-egreso-unstamped.xml';
const STAMP_PATH = 'cfdi:Comprobante/cfdi:Complemento/tfd:TimbreFiscalDigital';

/** The unstamped Egreso fixture with a test TimbreFiscalDigital added, as a PAC would return it. */
function stampedEgreso(): string {
  const stamp =
    '<cfdi:Complemento><tfd:TimbreFiscalDigital xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="1.1" ' +
    'UUID="A1B2C3D4-0000-4000-8000-00000000E003" FechaTimbrado="2023-07-26T12:05:00" RfcProvCertif="SAT970701NN3" ' +
    'SelloCFD="" NoCertificadoSAT="30001000000400002495" SelloSAT=""/></cfdi:Complemento>';
  return replaceOnce(fixtureText(UNSTAMPED_EGRESO), '</cfdi:Comprobante>', `${stamp}</cfdi:Comprobante>`);
}

describe('CFDI 4.0 Ingreso (real fixtures)', () => {
  it('reads the CfdiUtils invoice: UUID as number when there is no Serie/Folio, a discounted Concepto', () => {
    const document = parseDocument(fixtureBytes(CFDIUTILS_INGRESO), 'cfdi.xml');
    expect(document).toMatchObject({
      country: 'MEX',
      format: 'cfdi-4.0',
      type: 'invoice',
      documentNumber: '6f35d3b5-3651-5370-bc2c-14cdbe384cd7',
      fiscalReference: '6f35d3b5-3651-5370-bc2c-14cdbe384cd7',
      issueDate: '2025-02-19T08:32:29-06:00',
      expirationDate: null,
      currency: 'MXN',
      exchangeRate: null,
      purchaseOrder: null,
      finalNotes: [],
      references: [],
      payment: { form: '01', method: 'PUE', dueDate: null },
      metadata: {
        placeOfIssue: '86000',
        timeZone: 'America/Mexico_City',
        localIssueDate: '2025-02-19T08:32:29',
        stamp: { stampedAt: '2025-02-19T08:37:30' },
      },
    });
    expect(document.totals).toEqual({
      subtotalCents: 286_811n,
      taxTotalCents: 45_890n,
      withholdingTotalCents: 0n,
      totalCents: 332_701n,
    });
    expect(document.supplier).toEqual({
      name: 'ESCUELA KEMPER URGATE',
      identifierType: 'RFC',
      identifierNumber: 'EKU9003173C9',
      checkDigit: null,
      email: null,
      phone: null,
      address: null,
    });
    expect(document.customer).toMatchObject({
      name: 'MUNICIPIO DE CUAUTITLAN IZCALLI',
      identifierNumber: 'MCI7306249Y1',
    });
    expect(document.lineItems).toHaveLength(1);
    expect(document.lineItems[0]).toMatchObject({
      name: 'Portable tetris gamepad pro++ ⏻',
      code: 'GAMEPAD007',
      quantity: '4',
      unitCode: 'H87',
      unitPriceCents: 95_604n,
      subtotalCents: 286_811n,
      totalCents: 332_701n,
      metadata: { claveProdServ: '52161557', unit: 'PIEZA', unitPrice: '956.04', amount: '3824.15', objetoImp: '02' },
    });
    expect(document.lineItems[0]?.adjustments).toEqual([
      {
        type: 'discount',
        code: null,
        name: null,
        rate: null,
        ratePercentage: null,
        baseAmountCents: 382_415n,
        amountCents: 95_604n,
        isInclusive: false,
      },
      {
        type: 'tax',
        code: '002',
        name: 'IVA',
        rate: '0.16',
        ratePercentage: '16',
        baseAmountCents: 286_811n,
        amountCents: 45_890n,
        isInclusive: false,
      },
    ]);
  });

  it('reads the python-satcfdi invoice: Serie-Folio number, an RFC with "&"', () => {
    const document = parseDocument(fixtureBytes(SATCFDI_INGRESO), 'renta.xml');
    expect(document).toMatchObject({
      type: 'invoice',
      documentNumber: 'A-123456',
      fiscalReference: '6d7434a6-e3f2-47ad-9e4c-08849946afa0',
      issueDate: '2020-01-01T22:40:38-06:00',
      currency: 'MXN',
      payment: { form: null, method: 'PPD', dueDate: null },
      supplier: { name: 'HERRERIA & ELECTRICOS S DE CV', identifierType: 'RFC', identifierNumber: 'H&E951128469' },
      customer: { name: 'KIJ, S.A DE C.V.', identifierNumber: 'KIJ0906199R1' },
    });
    expect(document.totals).toEqual({
      subtotalCents: 1_539_030n,
      taxTotalCents: 246_245n,
      withholdingTotalCents: 0n,
      totalCents: 1_785_275n,
    });
    expect(document.lineItems.map((line) => [line.name, line.quantity, line.code, line.totalCents])).toEqual([
      ['RENTA DEL MES DE ENERO 2020', '1.00', '80131502', 1_785_275n],
    ]);
  });

  it('reads withholdings (Retenciones) and exempt transfers', () => {
    const transfer =
      '<cfdi:Traslado Base="15390.30" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="2462.45"/>';
    const retention =
      '<cfdi:Retenciones><cfdi:Retencion Base="15390.30" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.106667" Importe="1641.63"/></cfdi:Retenciones>';
    let withheld = replaceOnce(
      fixtureText(SATCFDI_INGRESO),
      `${transfer}\n        </cfdi:Traslados>`,
      `${transfer}\n        </cfdi:Traslados>${retention}`,
    );
    withheld = replaceOnce(
      withheld,
      '<cfdi:Impuestos TotalImpuestosTrasladados="2462.45">',
      '<cfdi:Impuestos TotalImpuestosRetenidos="1641.63" TotalImpuestosTrasladados="2462.45">',
    );
    withheld = replaceOnce(withheld, 'Total="17852.75"', 'Total="16211.12"');
    const document = parseDocument(withheld, 'retencion.xml');
    expect(document.totals).toEqual({
      subtotalCents: 1_539_030n,
      taxTotalCents: 246_245n,
      withholdingTotalCents: 164_163n,
      totalCents: 1_621_112n,
    });
    expect(document.lineItems[0]?.adjustments[1]).toEqual({
      type: 'withholding',
      code: '002',
      name: 'IVA',
      rate: '0.106667',
      ratePercentage: '10.6667',
      baseAmountCents: 1_539_030n,
      amountCents: 164_163n,
      isInclusive: false,
    });

    let exempt = fixtureText(SATCFDI_INGRESO).replaceAll(
      transfer,
      '<cfdi:Traslado Base="15390.30" Impuesto="002" TipoFactor="Exento"/>',
    );
    exempt = replaceOnce(exempt, '<cfdi:Impuestos TotalImpuestosTrasladados="2462.45">', '<cfdi:Impuestos>');
    exempt = replaceOnce(exempt, 'Total="17852.75"', 'Total="15390.30"');
    const exemptDocument = parseDocument(exempt, 'exento.xml');
    expect(exemptDocument.totals).toEqual({
      subtotalCents: 1_539_030n,
      taxTotalCents: 0n,
      withholdingTotalCents: 0n,
      totalCents: 1_539_030n,
    });
    expect(exemptDocument.lineItems[0]?.adjustments).toEqual([
      {
        type: 'tax',
        code: '002',
        name: 'IVA',
        rate: null,
        ratePercentage: null,
        baseAmountCents: 1_539_030n,
        amountCents: 0n,
        isInclusive: false,
      },
    ]);
  });

  it('uses the offset of the place of issue at that date', () => {
    const cancun = replaceOnce(fixtureText(SATCFDI_INGRESO), 'LugarExpedicion="56820"', 'LugarExpedicion="77500"');
    expect(parseDocument(cancun, 'c.xml').issueDate).toBe('2020-01-01T22:40:38-05:00');
    const summer2020 = replaceOnce(
      fixtureText(SATCFDI_INGRESO),
      'Fecha="2020-01-01T22:40:38"',
      'Fecha="2020-07-01T22:40:38"',
    );
    expect(parseDocument(summer2020, 's.xml').issueDate).toBe('2020-07-01T22:40:38-05:00');
  });
});

describe('CFDI 4.0 Egreso (credit note)', () => {
  it('refuses the real unstamped credit note', () => {
    const error = refusal(fixtureBytes(UNSTAMPED_EGRESO), 'nc.xml');
    expect(error).toMatchObject({ code: 'unstamped_cfdi', file: 'nc.xml', element: STAMP_PATH });
    expect(error.message).toContain('stamped');
  });

  it('reads it once stamped, with the related invoice in references', () => {
    const document = parseDocument(stampedEgreso(), 'nc.xml');
    expect(document).toMatchObject({
      type: 'credit_note',
      documentNumber: 'CN-0003',
      fiscalReference: 'a1b2c3d4-0000-4000-8000-00000000e003',
      issueDate: '2023-07-26T12:00:00-06:00',
      payment: { form: '99', method: 'PPD', dueDate: null },
      metadata: { paymentConditions: 'Condiciones de pago' },
      customer: { name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', identifierNumber: 'URE180429TM6' },
    });
    expect(document.references).toEqual([
      {
        documentNumber: null,
        fiscalReference: '1fac4464-1111-0000-1111-cd37179db12e',
        issueDate: null,
        relation: '01',
      },
    ]);
    expect(document.totals).toEqual({
      subtotalCents: 177n,
      taxTotalCents: 0n,
      withholdingTotalCents: 0n,
      totalCents: 177n,
    });
    expect(document.lineItems).toHaveLength(2);
    // A unit price with four decimals: rounded half-up to cents, the exact string kept.
    expect(document.lineItems[1]).toMatchObject({
      quantity: '1',
      unitPriceCents: 1n,
      subtotalCents: 1n,
      metadata: { unitPrice: '0.0087' },
    });
    expect(document.lineItems[0]?.adjustments).toEqual([
      {
        type: 'tax',
        code: '002',
        name: 'IVA',
        rate: '0',
        ratePercentage: '0',
        baseAmountCents: 176n,
        amountCents: 0n,
        isInclusive: false,
      },
    ]);
  });

  it('reads it from Latin-1 bytes when the declaration says so', () => {
    const latin1 = Buffer.from(stampedEgreso().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    expect(parseDocument(new Uint8Array(latin1), 'nc.xml').customer.name).toBe('UNIVERSIDAD ROBOTICA ESPAÑOLA');
  });
});

describe('CFDI 4.0 Pago (Pagos 2.0)', () => {
  it('reads the stamped payment of the python-satcfdi invoice', () => {
    const complement = parseComplement(fixtureBytes(SATCFDI_PAGO), 'pago.xml');
    expect(complement).toEqual({
      country: 'MEX',
      format: 'cfdi-4.0',
      fiscalReference: '5b64ada3-aa4c-40b4-a2f5-572ced52be31',
      documentNumber: 'A-123456',
      issueDate: '2020-01-01T22:40:38-06:00',
      supplier: {
        name: 'HERRERIA & ELECTRICOS S DE CV',
        identifierType: 'RFC',
        identifierNumber: 'H&E951128469',
        checkDigit: null,
        email: null,
        phone: null,
        address: null,
      },
      customer: {
        name: 'KIJ, S.A DE C.V.',
        identifierType: 'RFC',
        identifierNumber: 'KIJ0906199R1',
        checkDigit: null,
        email: null,
        phone: null,
        address: null,
      },
      payments: [
        {
          paidAt: '2020-01-02T22:40:38-06:00',
          form: '03',
          currency: 'MXN',
          amountCents: 1_785_275n,
          relatedDocuments: [
            {
              fiscalReference: '6d7434a6-e3f2-47ad-9e4c-08849946afa0',
              documentNumber: 'A-123456',
              currency: 'MXN',
              installment: 1,
              previousBalanceCents: 1_785_275n,
              paidCents: 1_785_275n,
              outstandingCents: 0n,
            },
          ],
        },
      ],
    });
    // The payment settles the invoice fixture it comes with.
    expect(complement.payments[0]?.relatedDocuments[0]?.fiscalReference).toBe(
      parseDocument(fixtureBytes(SATCFDI_INGRESO), 'renta.xml').fiscalReference,
    );
  });

  it('refuses the real unstamped payment', () => {
    expect(refusal(fixtureBytes(UNSTAMPED_PAGO), 'pago.xml')).toMatchObject({
      code: 'unstamped_cfdi',
      file: 'pago.xml',
      element: STAMP_PATH,
    });
  });

  it('refuses a related document whose balances do not add up', () => {
    const bad = replaceOnce(fixtureText(SATCFDI_PAGO), 'ImpSaldoInsoluto="0.00"', 'ImpSaldoInsoluto="10.00"');
    expect(refusal(bad, 'pago.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'pago.xml',
      element: 'cfdi:Comprobante/cfdi:Complemento/pago20:Pagos/pago20:Pago/pago20:DoctoRelacionado/@ImpSaldoInsoluto',
    });
  });

  it('refuses a MontoTotalPagos that differs from the payments', () => {
    const bad = replaceOnce(fixtureText(SATCFDI_PAGO), 'MontoTotalPagos="17852.75"', 'MontoTotalPagos="17952.75"');
    expect(refusal(bad, 'pago.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'pago.xml',
      element: 'cfdi:Comprobante/cfdi:Complemento/pago20:Pagos/pago20:Totales/@MontoTotalPagos',
    });
  });
});

describe('CFDI files that are refused', () => {
  const invoice = fixtureText(SATCFDI_INGRESO);

  it('refuses types T (traslado) and N (nómina)', () => {
    for (const type of ['T', 'N']) {
      const error = refusal(replaceOnce(invoice, 'TipoDeComprobante="I"', `TipoDeComprobante="${type}"`), 'x.xml');
      expect(error).toMatchObject({
        code: 'unsupported_document',
        file: 'x.xml',
        element: 'cfdi:Comprobante/@TipoDeComprobante',
      });
    }
  });

  it('refuses a Comprobante outside the CFDI 4.0 namespace', () => {
    const cfdi33 = replaceOnce(
      invoice,
      'xmlns:cfdi="http://www.sat.gob.mx/cfd/4"',
      'xmlns:cfdi="http://www.sat.gob.mx/cfd/3"',
    );
    const error = refusal(cfdi33, 'x.xml');
    expect(error).toMatchObject({ code: 'unsupported_document', file: 'x.xml', element: 'cfdi:Comprobante' });
    expect(error.message).toContain('3.3');
  });

  it('refuses a Total that does not add up', () => {
    const bad = replaceOnce(invoice, 'Total="17852.75"', 'Total="17862.75"');
    expect(refusal(bad, 'x.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'x.xml',
      element: 'cfdi:Comprobante/@Total',
    });
  });

  it('refuses a SubTotal that differs from the Conceptos', () => {
    const bad = replaceOnce(invoice, 'SubTotal="15390.30"', 'SubTotal="15490.30"');
    expect(refusal(bad, 'x.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'x.xml',
      element: 'cfdi:Comprobante/@SubTotal',
    });
  });

  it('refuses a malformed or missing folio fiscal', () => {
    const malformed = replaceOnce(
      invoice,
      'UUID="6d7434a6-e3f2-47ad-9e4c-08849946afa0"',
      'UUID="6d7434a6-e3f2-47ad-9e4c"',
    );
    expect(refusal(malformed, 'x.xml')).toMatchObject({
      code: 'invalid_fiscal_reference',
      file: 'x.xml',
      element: `${STAMP_PATH}/@UUID`,
    });
    const missing = replaceOnce(invoice, 'UUID="6d7434a6-e3f2-47ad-9e4c-08849946afa0"', '');
    expect(refusal(missing, 'x.xml')).toMatchObject({
      code: 'missing_element',
      file: 'x.xml',
      element: `${STAMP_PATH}/@UUID`,
    });
  });

  it('refuses a CFDI whose stamp was removed', () => {
    const unstamped = invoice.replace(/<tfd:TimbreFiscalDigital [^>]*\/>/, '');
    expect(refusal(unstamped, 'x.xml')).toMatchObject({ code: 'unstamped_cfdi', file: 'x.xml', element: STAMP_PATH });
  });

  it('refuses truncated XML', () => {
    expect(refusal(invoice.slice(0, invoice.indexOf('<cfdi:Conceptos>')), 'x.xml')).toMatchObject({
      code: 'malformed_xml',
      file: 'x.xml',
      element: null,
    });
  });
});

describe('CFDI TipoCambio: pesos per unit of Moneda', () => {
  const invoice = fixtureText(SATCFDI_INGRESO);
  const inCurrency = (attributes: string) => replaceOnce(invoice, 'Moneda="MXN"', attributes);

  it('keeps the rate of a dollar invoice, dated on its issue day', () => {
    expect(parseDocument(inCurrency('Moneda="USD" TipoCambio="17.123400"'), 'usd.xml')).toMatchObject({
      currency: 'USD',
      exchangeRate: { rate: '17.1234', sourceCurrency: 'USD', targetCurrency: 'MXN', date: '2020-01-01' },
    });
  });

  it('has no rate when a foreign-currency CFDI states none', () => {
    expect(parseDocument(inCurrency('Moneda="USD"'), 'usd.xml').exchangeRate).toBeNull();
  });

  it('drops TipoCambio="1" on a peso invoice and refuses another rate there', () => {
    expect(parseDocument(inCurrency('Moneda="MXN" TipoCambio="1"'), 'mxn.xml').exchangeRate).toBeNull();
    const error = refusal(inCurrency('Moneda="MXN" TipoCambio="17.5"'), 'mxn.xml');
    expect(error).toMatchObject({ code: 'exchange_rate_mismatch', element: 'cfdi:Comprobante/@TipoCambio' });
    expect(error.message).toContain('needs no exchange rate');
  });

  it('refuses a rate of zero', () => {
    expect(refusal(inCurrency('Moneda="USD" TipoCambio="0"'), 'usd.xml')).toMatchObject({
      code: 'invalid_value',
      element: 'cfdi:Comprobante/@TipoCambio',
    });
  });
});

describe('CFDI versions SAT no longer accepts are named when refused', () => {
  const invoice = fixtureText(SATCFDI_INGRESO);

  it('says CFDI 3.3 is no longer accepted since 2023', () => {
    const cfdi33 = replaceOnce(
      replaceOnce(invoice, 'xmlns:cfdi="http://www.sat.gob.mx/cfd/4"', 'xmlns:cfdi="http://www.sat.gob.mx/cfd/3"'),
      'Version="4.0" Serie',
      'Version="3.3" Serie',
    );
    const error = refusal(cfdi33, '33.xml');
    expect(error).toMatchObject({ code: 'unsupported_document', element: 'cfdi:Comprobante' });
    expect(error.message).toContain('CFDI 3.3 is no longer accepted by SAT (since 2023); only CFDI 4.0 is read');
  });

  it('names CFDI 3.2 by its lower-case version attribute', () => {
    const cfdi32 = replaceOnce(
      replaceOnce(invoice, 'xmlns:cfdi="http://www.sat.gob.mx/cfd/4"', 'xmlns:cfdi="http://www.sat.gob.mx/cfd/3"'),
      'Version="4.0" Serie',
      'version="3.2" Serie',
    );
    expect(refusal(cfdi32, '32.xml').message).toContain('CFDI 3.2 is no longer accepted by SAT (since 2018)');
  });
});
