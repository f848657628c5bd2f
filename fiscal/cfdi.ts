// SAT CFDI 4.0 (Mexico): Ingreso and Egreso → NormalizedDocument, Pago (Pagos 2.0) → NormalizedPaymentComplement.

import { normalizeSatUuid } from './cufe.ts';
import { mexicanDateTime, mexicanTimeZone } from './dates.ts';
import { FiscalDocumentError } from './errors.ts';
import { checkedExchangeRate, LOCAL_CURRENCY } from './exchange-rate.ts';
import { centsAt, centsDistance, centsToDecimal, decimalAt, fractionToPercent, normalizeDecimal } from './money.ts';
import type {
  FiscalAdjustment,
  FiscalExchangeRate,
  FiscalLineItem,
  FiscalParty,
  FiscalReferenceToOther,
  NormalizedDocument,
  NormalizedPaymentComplement,
  ParsedFiscalFile,
} from './normalized-document.ts';
import {
  attr,
  attrPath,
  child,
  childPath,
  childrenNamed,
  findAll,
  requireAttr,
  requireChild,
  type XmlElement,
} from './xml.ts';

export const CFDI_NAMESPACE = 'http://www.sat.gob.mx/cfd/4';
/** The namespace of CFDI 3.2 and 3.3. */
const CFDI_3_NAMESPACE = 'http://www.sat.gob.mx/cfd/3';
/** Earlier CFDI versions and the year since which SAT no longer accepts them. */
const RETIRED_VERSIONS: Record<string, string> = { '3.2': '2018', '3.3': '2023' };
const PAGOS_20_NAMESPACE = 'http://www.sat.gob.mx/Pagos20';

/** SAT tax codes (c_Impuesto). */
const SAT_TAX_NAMES: Record<string, string> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };

const REFUSED_TYPES: Record<string, string> = { T: 'traslado', N: 'nómina' };

interface Header {
  root: XmlElement;
  file: string;
  fiscalReference: string;
  documentNumber: string;
  issueDate: string;
  timeZone: string;
  supplier: FiscalParty;
  customer: FiscalParty;
  stamp: XmlElement;
}

/** Reads a stamped CFDI 4.0: I (invoice) and E (credit note) as documents, P as a Pagos 2.0 payment complement. */
export function parseCfdi(root: XmlElement, file: string): ParsedFiscalFile {
  // CFDI 3.2 wrote its version in lower case.
  const declared = attr(root, 'Version') ?? attr(root, 'version');
  const retiredSince = declared === null ? undefined : RETIRED_VERSIONS[declared];
  if (retiredSince !== undefined || root.namespace === CFDI_3_NAMESPACE) {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      root.path,
      retiredSince === undefined
        ? `a Comprobante in the namespace ${CFDI_3_NAMESPACE} is CFDI 3.2 or 3.3, no longer accepted by SAT (since 2023); only CFDI 4.0 is read`
        : `CFDI ${declared} is no longer accepted by SAT (since ${retiredSince}); only CFDI 4.0 is read`,
    );
  }
  if (root.namespace !== CFDI_NAMESPACE) {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      root.path,
      `a CFDI Comprobante must be in the namespace ${CFDI_NAMESPACE}, found ${root.namespace ?? 'no namespace'}`,
    );
  }
  const version = requireAttr(root, 'Version', file);
  if (version !== '4.0') {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      attrPath(root, 'Version'),
      `only CFDI version 4.0 is accepted, found ${version}`,
    );
  }
  const type = requireAttr(root, 'TipoDeComprobante', file);
  if (type !== 'I' && type !== 'E' && type !== 'P') {
    const label = REFUSED_TYPES[type];
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      attrPath(root, 'TipoDeComprobante'),
      `TipoDeComprobante ${type}${label === undefined ? '' : ` (${label})`} is not a payable document: only I (ingreso), E (egreso) and P (pago) are accepted`,
    );
  }
  const header = readHeader(root, file);
  if (type === 'P') return { kind: 'payment_complement', complement: parsePaymentComplement(header) };
  return { kind: 'document', document: parseInvoiceOrCreditNote(header, type === 'I' ? 'invoice' : 'credit_note') };
}

function readHeader(root: XmlElement, file: string): Header {
  const complements = childrenNamed(root, 'Complemento');
  const stamp = complements.flatMap((complement) => childrenNamed(complement, 'TimbreFiscalDigital'))[0];
  if (stamp === undefined) {
    throw new FiscalDocumentError(
      'unstamped_cfdi',
      file,
      `${root.path}/cfdi:Complemento/tfd:TimbreFiscalDigital`,
      'the CFDI has no TimbreFiscalDigital: a received CFDI must be stamped by the SAT (through a PAC) to be valid',
    );
  }
  const uuid = requireAttr(stamp, 'UUID', file);
  const fiscalReference = normalizeSatUuid(uuid);
  if (fiscalReference === null) {
    throw new FiscalDocumentError(
      'invalid_fiscal_reference',
      file,
      attrPath(stamp, 'UUID'),
      `the folio fiscal must be a UUID, found ${JSON.stringify(uuid)}`,
    );
  }
  // Fecha is the local time of the place of issue (LugarExpedicion), written without an offset.
  const timeZone = mexicanTimeZone(attr(root, 'LugarExpedicion'));
  const issueDate = mexicanDateTime(requireAttr(root, 'Fecha', file), timeZone, attrPath(root, 'Fecha'), file);
  return {
    root,
    file,
    fiscalReference,
    documentNumber: documentNumberOf(attr(root, 'Serie'), attr(root, 'Folio')) ?? fiscalReference,
    issueDate,
    timeZone,
    supplier: parseParty(requireChild(root, 'Emisor', 'cfdi:Emisor', file), file),
    customer: parseParty(requireChild(root, 'Receptor', 'cfdi:Receptor', file), file),
    stamp,
  };
}

/** Serie and Folio joined by a dash ("A-123"); either alone stands by itself. */
function documentNumberOf(serie: string | null, folio: string | null): string | null {
  if (serie !== null && folio !== null) return `${serie}-${folio}`;
  return folio ?? serie;
}

function parseParty(element: XmlElement, file: string): FiscalParty {
  const rfc = requireAttr(element, 'Rfc', file).toUpperCase();
  return {
    name: attr(element, 'Nombre') ?? rfc,
    identifierType: 'RFC',
    identifierNumber: rfc,
    checkDigit: null,
    email: null,
    phone: null,
    address: null,
  };
}

function parseInvoiceOrCreditNote(header: Header, type: 'invoice' | 'credit_note'): NormalizedDocument {
  const { root, file } = header;
  const concepts = findAll(root, 'Conceptos', 'Concepto');
  if (concepts.length === 0) {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      `${root.path}/cfdi:Conceptos/cfdi:Concepto`,
      'the CFDI has no Concepto',
    );
  }
  const lineItems = concepts.map((concept, index) => parseConcept(concept, index + 1, file));
  const totals = checkTotals(root, lineItems, file);
  const currency = requireAttr(root, 'Moneda', file);

  return {
    country: 'MEX',
    format: 'cfdi-4.0',
    type,
    documentNumber: header.documentNumber,
    fiscalReference: header.fiscalReference,
    issueDate: header.issueDate,
    expirationDate: null,
    currency,
    exchangeRate: readExchangeRate(header, currency),
    statedExchangeRate: null,
    totals,
    prepaid: null,
    supplier: header.supplier,
    customer: header.customer,
    lineItems,
    purchaseOrder: null,
    finalNotes: [],
    references: readRelated(root),
    payment: { form: attr(root, 'FormaPago'), method: attr(root, 'MetodoPago'), dueDate: null },
    metadata: {
      ...headerMetadata(header),
      paymentConditions: attr(root, 'CondicionesDePago'),
      exportacion: attr(root, 'Exportacion'),
      subTotal: attr(root, 'SubTotal'),
      discount: attr(root, 'Descuento'),
    },
    supportDocument: null,
  };
}

/**
 * TipoCambio is by definition the pesos one unit of Moneda is worth, on the issue day: it has no direction to get
 * wrong, but a peso document must state 1 if it states one (SAT files often write TipoCambio="1").
 */
function readExchangeRate(header: Header, currency: string): FiscalExchangeRate | null {
  const { root, file } = header;
  const rate = attr(root, 'TipoCambio');
  if (rate === null) return null;
  return checkedExchangeRate(
    {
      rate,
      sourceCurrency: currency,
      targetCurrency: LOCAL_CURRENCY.MEX,
      date: header.issueDate.slice(0, 10),
      element: attrPath(root, 'TipoCambio'),
    },
    currency,
    'MEX',
    file,
  );
}

function headerMetadata(header: Header): Record<string, unknown> {
  const { root, stamp } = header;
  const issuer = child(root, 'Emisor');
  const receiver = child(root, 'Receptor');
  return {
    version: attr(root, 'Version'),
    documentTypeCode: attr(root, 'TipoDeComprobante'),
    serie: attr(root, 'Serie'),
    folio: attr(root, 'Folio'),
    localIssueDate: attr(root, 'Fecha'),
    placeOfIssue: attr(root, 'LugarExpedicion'),
    timeZone: header.timeZone,
    certificateNumber: attr(root, 'NoCertificado'),
    issuerTaxRegime: attr(issuer, 'RegimenFiscal'),
    receiverTaxRegime: attr(receiver, 'RegimenFiscalReceptor'),
    receiverPostalCode: attr(receiver, 'DomicilioFiscalReceptor'),
    cfdiUse: attr(receiver, 'UsoCFDI'),
    stamp: {
      version: attr(stamp, 'Version'),
      stampedAt: attr(stamp, 'FechaTimbrado'),
      certifierRfc: attr(stamp, 'RfcProvCertif'),
      satCertificateNumber: attr(stamp, 'NoCertificadoSAT'),
    },
  };
}

function parseConcept(concept: XmlElement, position: number, file: string): FiscalLineItem {
  const amount = requireAttr(concept, 'Importe', file);
  const amountCents = centsAt(amount, attrPath(concept, 'Importe'), file);
  const discount = attr(concept, 'Descuento');
  const discountCents = discount === null ? 0n : centsAt(discount, attrPath(concept, 'Descuento'), file);
  const unitPrice = decimalAt(requireAttr(concept, 'ValorUnitario', file), attrPath(concept, 'ValorUnitario'), file);
  const adjustments: FiscalAdjustment[] = [];
  if (discountCents !== 0n) {
    adjustments.push({
      type: 'discount',
      code: null,
      name: null,
      rate: null,
      ratePercentage: null,
      baseAmountCents: amountCents,
      amountCents: discountCents,
      isInclusive: false,
    });
  }
  for (const transfer of findAll(concept, 'Impuestos', 'Traslados', 'Traslado'))
    adjustments.push(parseTax(transfer, 'tax', file));
  for (const withholding of findAll(concept, 'Impuestos', 'Retenciones', 'Retencion'))
    adjustments.push(parseTax(withholding, 'withholding', file));

  const subtotalCents = amountCents - discountCents;
  let totalCents = subtotalCents;
  for (const adjustment of adjustments) {
    if (adjustment.type === 'tax') totalCents += adjustment.amountCents;
    if (adjustment.type === 'withholding') totalCents -= adjustment.amountCents;
  }
  const productCode = attr(concept, 'ClaveProdServ');
  const ownCode = attr(concept, 'NoIdentificacion');
  return {
    position,
    name: requireAttr(concept, 'Descripcion', file),
    description: null,
    code: ownCode ?? productCode,
    quantity: decimalAt(requireAttr(concept, 'Cantidad', file), attrPath(concept, 'Cantidad'), file),
    unitCode: attr(concept, 'ClaveUnidad'),
    unitPriceCents: centsAt(unitPrice, attrPath(concept, 'ValorUnitario'), file),
    subtotalCents,
    totalCents,
    adjustments,
    metadata: {
      claveProdServ: productCode,
      noIdentificacion: ownCode,
      unit: attr(concept, 'Unidad'),
      unitPrice,
      amount,
      discount,
      objetoImp: attr(concept, 'ObjetoImp'),
    },
  };
}

function parseTax(element: XmlElement, type: 'tax' | 'withholding', file: string): FiscalAdjustment {
  const code = requireAttr(element, 'Impuesto', file);
  const factor = requireAttr(element, 'TipoFactor', file);
  const base = centsAt(requireAttr(element, 'Base', file), attrPath(element, 'Base'), file);
  const name = SAT_TAX_NAMES[code] ?? null;
  if (factor === 'Exento') {
    return {
      type,
      code,
      name,
      rate: null,
      ratePercentage: null,
      baseAmountCents: base,
      amountCents: 0n,
      isInclusive: false,
    };
  }
  const rate = decimalAt(requireAttr(element, 'TasaOCuota', file), attrPath(element, 'TasaOCuota'), file);
  const amountCents = centsAt(requireAttr(element, 'Importe', file), attrPath(element, 'Importe'), file);
  if (factor === 'Cuota') {
    // A Cuota is an amount per unit, not a fraction.
    return {
      type,
      code,
      name,
      rate: null,
      ratePercentage: null,
      baseAmountCents: base,
      amountCents,
      isInclusive: false,
    };
  }
  if (factor !== 'Tasa') {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      attrPath(element, 'TipoFactor'),
      `expected Tasa, Cuota or Exento, found ${JSON.stringify(factor)}`,
    );
  }
  return {
    type,
    code,
    name,
    rate: normalizeDecimal(rate),
    ratePercentage: fractionToPercent(rate),
    baseAmountCents: base,
    amountCents,
    isInclusive: false,
  };
}

/** Refuses a CFDI whose totals do not add up (1 cent of rounding per Concepto) and returns the normalized totals. */
function checkTotals(root: XmlElement, lineItems: FiscalLineItem[], file: string): NormalizedDocument['totals'] {
  const tolerance = BigInt(lineItems.length);
  const money = (name: string, element: XmlElement = root): bigint | null => {
    const value = attr(element, name);
    return value === null ? null : centsAt(value, attrPath(element, name), file);
  };
  const required = (name: string): bigint => centsAt(requireAttr(root, name, file), attrPath(root, name), file);
  const subTotal = required('SubTotal');
  const discount = money('Descuento') ?? 0n;
  const total = required('Total');
  const amounts = sum(lineItems.map((line) => line.subtotalCents + adjustmentSum(line, 'discount')));
  const lineDiscounts = sum(lineItems.map((line) => adjustmentSum(line, 'discount')));
  const lineTaxes = sum(lineItems.map((line) => adjustmentSum(line, 'tax')));
  const lineWithholdings = sum(lineItems.map((line) => adjustmentSum(line, 'withholding')));

  if (centsDistance(amounts, subTotal) > tolerance) {
    throw mismatch(
      file,
      attrPath(root, 'SubTotal'),
      `SubTotal is ${centsToDecimal(subTotal)} but the Concepto amounts add up to ${centsToDecimal(amounts)}`,
    );
  }
  if (centsDistance(lineDiscounts, discount) > tolerance) {
    throw mismatch(
      file,
      attrPath(root, 'Descuento'),
      `Descuento is ${centsToDecimal(discount)} but the Concepto discounts add up to ${centsToDecimal(lineDiscounts)}`,
    );
  }
  const taxes = child(root, 'Impuestos');
  const transferred = taxes === undefined ? null : money('TotalImpuestosTrasladados', taxes);
  const withheld = taxes === undefined ? null : money('TotalImpuestosRetenidos', taxes);
  if (taxes !== undefined && transferred !== null && centsDistance(transferred, lineTaxes) > tolerance) {
    throw mismatch(
      file,
      attrPath(taxes, 'TotalImpuestosTrasladados'),
      `TotalImpuestosTrasladados is ${centsToDecimal(transferred)} but the Concepto taxes add up to ${centsToDecimal(lineTaxes)}`,
    );
  }
  if (taxes !== undefined && withheld !== null && centsDistance(withheld, lineWithholdings) > tolerance) {
    throw mismatch(
      file,
      attrPath(taxes, 'TotalImpuestosRetenidos'),
      `TotalImpuestosRetenidos is ${centsToDecimal(withheld)} but the Concepto withholdings add up to ${centsToDecimal(lineWithholdings)}`,
    );
  }
  const taxTotalCents = transferred ?? lineTaxes;
  const withholdingTotalCents = withheld ?? lineWithholdings;
  const expected = subTotal - discount + taxTotalCents - withholdingTotalCents;
  if (centsDistance(expected, total) > tolerance) {
    throw mismatch(
      file,
      attrPath(root, 'Total'),
      `Total is ${centsToDecimal(total)} but SubTotal − Descuento + taxes − withholdings is ${centsToDecimal(expected)}`,
    );
  }
  return { subtotalCents: subTotal - discount, taxTotalCents, withholdingTotalCents, totalCents: total };
}

function adjustmentSum(line: FiscalLineItem, type: FiscalAdjustment['type']): bigint {
  return sum(
    line.adjustments.filter((adjustment) => adjustment.type === type).map((adjustment) => adjustment.amountCents),
  );
}

function readRelated(root: XmlElement): FiscalReferenceToOther[] {
  return childrenNamed(root, 'CfdiRelacionados').flatMap((group) =>
    childrenNamed(group, 'CfdiRelacionado').map((related) => ({
      documentNumber: null,
      fiscalReference: attr(related, 'UUID')?.toLowerCase() ?? null,
      issueDate: null,
      relation: attr(group, 'TipoRelacion'),
    })),
  );
}

function parsePaymentComplement(header: Header): NormalizedPaymentComplement {
  const { root, file } = header;
  const payments = childrenNamed(root, 'Complemento').flatMap((complement) => childrenNamed(complement, 'Pagos'))[0];
  if (payments === undefined) {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      `${root.path}/cfdi:Complemento/pago20:Pagos`,
      'a CFDI of type P must carry the Pagos 2.0 complement',
    );
  }
  if (payments.namespace !== PAGOS_20_NAMESPACE || attr(payments, 'Version') !== '2.0') {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      payments.path,
      `only Pagos 2.0 (${PAGOS_20_NAMESPACE}) is accepted`,
    );
  }
  const paymentElements = childrenNamed(payments, 'Pago');
  if (paymentElements.length === 0) {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      childPath(payments, 'pago20:Pago'),
      'the Pagos complement has no Pago',
    );
  }
  const parsed = paymentElements.map((payment) => parsePayment(payment, header.timeZone, file));

  const totals = child(payments, 'Totales');
  const declared = attr(totals, 'MontoTotalPagos');
  // MontoTotalPagos is in MXN: only comparable to the Monto values when every payment is in MXN.
  if (totals !== undefined && declared !== null && parsed.every((payment) => payment.currency === 'MXN')) {
    const declaredCents = centsAt(declared, attrPath(totals, 'MontoTotalPagos'), file);
    const paidCents = sum(parsed.map((payment) => payment.amountCents));
    if (centsDistance(declaredCents, paidCents) > BigInt(parsed.length)) {
      throw mismatch(
        file,
        attrPath(totals, 'MontoTotalPagos'),
        `MontoTotalPagos is ${centsToDecimal(declaredCents)} but the Pago amounts add up to ${centsToDecimal(paidCents)}`,
      );
    }
  }

  return {
    country: 'MEX',
    format: 'cfdi-4.0',
    fiscalReference: header.fiscalReference,
    documentNumber: header.documentNumber,
    issueDate: header.issueDate,
    supplier: header.supplier,
    customer: header.customer,
    payments: parsed,
  };
}

function parsePayment(
  payment: XmlElement,
  timeZone: string,
  file: string,
): NormalizedPaymentComplement['payments'][number] {
  const money = (element: XmlElement, name: string): bigint =>
    centsAt(requireAttr(element, name, file), attrPath(element, name), file);
  const relatedDocuments = childrenNamed(payment, 'DoctoRelacionado').map((related) => {
    const id = requireAttr(related, 'IdDocumento', file);
    const fiscalReference = normalizeSatUuid(id);
    if (fiscalReference === null) {
      throw new FiscalDocumentError(
        'invalid_fiscal_reference',
        file,
        attrPath(related, 'IdDocumento'),
        `IdDocumento must be the UUID of the paid CFDI, found ${JSON.stringify(id)}`,
      );
    }
    const installment = requireAttr(related, 'NumParcialidad', file);
    if (!/^[1-9]\d{0,5}$/.test(installment)) {
      throw new FiscalDocumentError(
        'invalid_value',
        file,
        attrPath(related, 'NumParcialidad'),
        `expected a positive whole number, found ${JSON.stringify(installment)}`,
      );
    }
    const previousBalanceCents = money(related, 'ImpSaldoAnt');
    const paidCents = money(related, 'ImpPagado');
    const outstandingCents = money(related, 'ImpSaldoInsoluto');
    if (centsDistance(previousBalanceCents - paidCents, outstandingCents) > 1n) {
      throw mismatch(
        file,
        attrPath(related, 'ImpSaldoInsoluto'),
        `ImpSaldoInsoluto is ${centsToDecimal(outstandingCents)} but ImpSaldoAnt − ImpPagado is ${centsToDecimal(previousBalanceCents - paidCents)}`,
      );
    }
    return {
      fiscalReference,
      documentNumber: documentNumberOf(attr(related, 'Serie'), attr(related, 'Folio')),
      currency: requireAttr(related, 'MonedaDR', file),
      installment: Number(installment),
      previousBalanceCents,
      paidCents,
      outstandingCents,
    };
  });
  return {
    paidAt: mexicanDateTime(requireAttr(payment, 'FechaPago', file), timeZone, attrPath(payment, 'FechaPago'), file),
    form: attr(payment, 'FormaDePagoP'),
    currency: requireAttr(payment, 'MonedaP', file),
    amountCents: money(payment, 'Monto'),
    relatedDocuments,
  };
}

function mismatch(file: string, element: string, detail: string): FiscalDocumentError {
  return new FiscalDocumentError('totals_mismatch', file, element, `the totals do not add up: ${detail}`);
}

function sum(values: bigint[]): bigint {
  return values.reduce((total, value) => total + value, 0n);
}
