// DIAN UBL 2.1 invoices, credit notes, debit notes and documentos soporte (Colombia) → NormalizedDocument.

import { LEGACY_CUFE_PATTERN, normalizeCufe } from './cufe.ts';
import { colombianDateTime, colombianStartOfDay, dateAt } from './dates.ts';
import { FiscalDocumentError } from './errors.ts';
import { dianExchange, type DianExchange } from './exchange-rate.ts';
import {
  centsAt,
  centsDistance,
  centsToDecimal,
  decimalAt,
  decimalToCents,
  normalizeDecimal,
  percentToFraction,
} from './money.ts';
import {
  PREPAID_CONVENTIONS,
  type FiscalAdjustment,
  type FiscalDocumentType,
  type FiscalLineItem,
  type FiscalParseContext,
  type FiscalParty,
  type FiscalPrepaid,
  type FiscalReferenceToOther,
  type NormalizedDocument,
  type PrepaidConvention,
} from './normalized-document.ts';
import { isSupportDocument, readSupportDocument } from './support-document.ts';
import {
  attr,
  child,
  childPath,
  childrenNamed,
  find,
  findAll,
  requireChild,
  requireText,
  textAt,
  textOf,
  type XmlElement,
} from './xml.ts';

interface UblKind {
  namespace: string;
  type: FiscalDocumentType;
  line: string;
  quantity: string;
  /** DebitNote carries RequestedMonetaryTotal where the others carry LegalMonetaryTotal. */
  monetaryTotal: string;
  typeCode: string;
}

const UBL_KINDS: Record<string, UblKind> = {
  Invoice: {
    namespace: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
    type: 'invoice',
    line: 'InvoiceLine',
    quantity: 'InvoicedQuantity',
    monetaryTotal: 'LegalMonetaryTotal',
    typeCode: 'InvoiceTypeCode',
  },
  CreditNote: {
    namespace: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
    type: 'credit_note',
    line: 'CreditNoteLine',
    quantity: 'CreditedQuantity',
    monetaryTotal: 'LegalMonetaryTotal',
    typeCode: 'CreditNoteTypeCode',
  },
  DebitNote: {
    namespace: 'urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2',
    type: 'debit_note',
    line: 'DebitNoteLine',
    quantity: 'DebitedQuantity',
    monetaryTotal: 'RequestedMonetaryTotal',
    typeCode: 'DebitNoteTypeCode',
  },
};

/** The root namespace of DIAN's 2017 electronic invoice (v1), which predates UBL 2.1. */
const DIAN_V1_NAMESPACE = 'http://www.dian.gov.co/contratos/facturaelectronica/v1';

/** DIAN identity document types (`schemeName` of CompanyID / PartyIdentification ID). */
const DIAN_ID_TYPES: Record<string, string> = {
  '11': 'RC',
  '12': 'TI',
  '13': 'CC',
  '21': 'TE',
  '22': 'CE',
  '31': 'NIT',
  '41': 'PA',
  '42': 'FOREIGN_ID',
  '47': 'PEP',
  '48': 'PPT',
  '50': 'NIT_EXT',
  '91': 'NUIP',
};

/** Whether a root element is one of the UBL documents this module reads (namespace not yet checked). */
export function isUblDocumentRoot(root: XmlElement): boolean {
  return Object.hasOwn(UBL_KINDS, root.localName);
}

/**
 * Reads a DIAN UBL 2.1 Invoice, CreditNote or DebitNote into the normalized shape, checking its CUFE/CUDE and totals.
 * An Invoice of type 05 is a documento soporte: an `expense`, whose CUDS is checked and whose seller is the supplier.
 */
export function parseDianDocument(
  root: XmlElement,
  file: string,
  context: FiscalParseContext = {},
): NormalizedDocument {
  const kind = UBL_KINDS[root.localName];
  if (kind === undefined || root.namespace !== kind.namespace) {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      root.path,
      kind === undefined
        ? `${root.name} is not a UBL Invoice, CreditNote or DebitNote`
        : root.namespace === DIAN_V1_NAMESPACE
          ? `the 2017 DIAN v1 format (${DIAN_V1_NAMESPACE}) was replaced by DIAN UBL 2.1 in 2019 and is no longer accepted; only DIAN UBL 2.1 documents are read`
          : `a UBL ${root.localName} must be in the namespace ${kind.namespace}, found ${root.namespace ?? 'no namespace'}`,
    );
  }

  const documentNumber = requireText(root, 'ID', 'cbc:ID', file).value;
  const supportDocument = isSupportDocument(root);
  const { fiscalReference, scheme } = readOwnFiscalReference(
    root,
    supportDocument ? 'CUDS' : kind.type === 'invoice' ? 'CUFE' : 'CUDE',
    file,
  );
  const issueDateElement = requireText(root, 'IssueDate', 'cbc:IssueDate', file);
  const issueTimeElement = child(root, 'IssueTime');
  const issueDate = colombianDateTime(
    issueDateElement.value,
    textOf(issueTimeElement),
    issueDateElement.element.path,
    issueTimeElement?.path ?? childPath(root, 'cbc:IssueTime'),
    file,
  );

  const monetaryTotal =
    child(root, kind.monetaryTotal) ?? child(root, 'LegalMonetaryTotal') ?? child(root, 'RequestedMonetaryTotal');
  if (monetaryTotal === undefined) {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      childPath(root, `cac:${kind.monetaryTotal}`),
      `required element cac:${kind.monetaryTotal} is missing`,
    );
  }
  const payableElement = requireChild(monetaryTotal, 'PayableAmount', 'cbc:PayableAmount', file);
  const currency =
    textAt(root, 'DocumentCurrencyCode') ??
    attr(payableElement, 'currencyID') ??
    failMissing(root, 'cbc:DocumentCurrencyCode', file);

  const supplier = parseParty(
    requireChild(
      requireChild(root, 'AccountingSupplierParty', 'cac:AccountingSupplierParty', file),
      'Party',
      'cac:Party',
      file,
    ),
    file,
  );
  const customer = parseParty(
    requireChild(
      requireChild(root, 'AccountingCustomerParty', 'cac:AccountingCustomerParty', file),
      'Party',
      'cac:Party',
      file,
    ),
    file,
  );

  const lineElements = childrenNamed(root, kind.line);
  if (lineElements.length === 0) failMissing(root, `cac:${kind.line}`, file);
  const lineItems = lineElements.map((line, index) => parseLine(line, index + 1, kind, file));

  const documentAllowances = childrenNamed(root, 'AllowanceCharge').map((element) => ({
    element,
    adjustment: parseAllowanceCharge(element, file),
  }));
  const taxTotals = childrenNamed(root, 'TaxTotal');
  const withholdingTotals = childrenNamed(root, 'WithholdingTaxTotal');
  const taxTotalCents = sum(taxTotals.map((total) => requireAmount(total, 'TaxAmount', 'cbc:TaxAmount', file)));
  const withholdingTotalCents = sum(
    withholdingTotals.map((total) => requireAmount(total, 'TaxAmount', 'cbc:TaxAmount', file)),
  );
  const { withholdingsDeducted, prepaid, totalCents } = checkTotals({
    root,
    monetaryTotal,
    lineItems,
    taxTotals,
    documentAllowances,
    taxTotalCents,
    withholdingTotalCents,
    file,
  });

  const dueDate = readDueDate(root, file);
  const { exchangeRate, statedExchangeRate } = readExchangeRate(root, currency, file);
  const discrepancies = childrenNamed(root, 'DiscrepancyResponse').map((element) => ({
    referenceId: textAt(element, 'ReferenceID'),
    responseCode: textAt(element, 'ResponseCode'),
    description: textAt(element, 'Description'),
  }));
  const profileExecutionId = textAt(root, 'ProfileExecutionID');
  const dianExtensions = findAll(root, 'UBLExtensions', 'UBLExtension', 'ExtensionContent', 'DianExtensions')[0];
  const support = supportDocument
    ? readSupportDocument({
        root,
        file,
        documentNumber,
        cuds: fiscalReference,
        cudsElement: child(root, 'UUID')!,
        supplierParty: supplier,
        customerParty: customer,
        monetaryTotal,
        context,
      })
    : null;

  return {
    country: 'COL',
    format: 'dian-ubl-2.1',
    type: support ? 'expense' : kind.type,
    documentNumber,
    fiscalReference,
    issueDate,
    expirationDate: dueDate === null ? null : colombianStartOfDay(dueDate),
    currency,
    exchangeRate,
    statedExchangeRate,
    totals: {
      subtotalCents: requireAmount(monetaryTotal, 'LineExtensionAmount', 'cbc:LineExtensionAmount', file),
      taxTotalCents,
      withholdingTotalCents,
      totalCents,
    },
    prepaid,
    supplier: support?.seller ?? supplier,
    customer: support?.buyer ?? customer,
    lineItems,
    purchaseOrder: textAt(root, 'OrderReference', 'ID'),
    finalNotes: childrenNamed(root, 'Note').flatMap((note) => textOf(note) ?? []),
    references: readReferences(root, discrepancies),
    payment: {
      form: textAt(root, 'PaymentMeans', 'ID'),
      method: textAt(root, 'PaymentMeans', 'PaymentMeansCode'),
      dueDate,
    },
    metadata: {
      ublVersion: textAt(root, 'UBLVersionID'),
      customizationId: textAt(root, 'CustomizationID'),
      profileId: textAt(root, 'ProfileID'),
      profileExecutionId,
      environment: profileExecutionId === '1' ? 'production' : profileExecutionId === '2' ? 'test' : null,
      documentTypeCode: textAt(root, kind.typeCode),
      fiscalReferenceScheme: scheme,
      signed: find(root, 'UBLExtensions', 'UBLExtension', 'ExtensionContent', 'Signature') !== undefined,
      dianExtensionsNamespace: dianExtensions?.namespace ?? null,
      invoiceAuthorization: textAt(dianExtensions, 'InvoiceControl', 'InvoiceAuthorization'),
      softwareId: textAt(dianExtensions, 'SoftwareProvider', 'SoftwareID'),
      lineCount: lineItems.length,
      discrepancies,
      documentAllowanceCharges: documentAllowances.map(({ adjustment }) => ({
        type: adjustment.type,
        reasonCode: adjustment.code,
        reason: adjustment.name,
        amount: centsToDecimal(adjustment.amountCents),
      })),
      monetaryTotal: Object.fromEntries(
        monetaryTotal.children.flatMap((element) =>
          textOf(element) === null ? [] : [[element.localName, textOf(element)]],
        ),
      ),
      // DIAN's PayableAmount normally leaves withholdings to the buyer; some issuers deduct them.
      withholdingsDeductedFromPayable: withholdingsDeducted,
      dueDateInHeader: textAt(root, 'DueDate'),
      paymentTermsDays: readPaymentTermsDays(root),
    },
    supportDocument: support,
  };
}

function readOwnFiscalReference(
  root: XmlElement,
  label: 'CUFE' | 'CUDE' | 'CUDS',
  file: string,
): { fiscalReference: string; scheme: string | null } {
  // Only the UUID directly under the root is this document's key; UUIDs deeper down (BillingReference…) belong to others.
  const element = child(root, 'UUID');
  if (element === undefined) {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      childPath(root, 'cbc:UUID'),
      `the document's ${label} (cbc:UUID) is missing`,
    );
  }
  const scheme = attr(element, 'schemeName');
  const value = textOf(element);
  if (value === null) {
    throw new FiscalDocumentError(
      'invalid_fiscal_reference',
      file,
      element.path,
      `the document's ${label} is empty: an unvalidated document cannot be accepted`,
    );
  }
  const fiscalReference = normalizeCufe(value);
  if (fiscalReference === null) {
    throw new FiscalDocumentError(
      'invalid_fiscal_reference',
      file,
      element.path,
      LEGACY_CUFE_PATTERN.test(value)
        ? `a ${label} of 40 hexadecimal characters is a SHA-1 ${label} of DIAN's format before 2019, no longer accepted; ` +
            `only DIAN UBL 2.1 documents, whose ${label} is SHA-384 (96 hexadecimal characters), are read`
        : `the ${label} must be 96 hexadecimal characters (SHA-384), found ${value.length} characters`,
    );
  }
  return { fiscalReference, scheme };
}

function parseParty(party: XmlElement, file: string): FiscalParty {
  const name =
    textAt(party, 'PartyTaxScheme', 'RegistrationName') ??
    textAt(party, 'PartyLegalEntity', 'RegistrationName') ??
    textAt(party, 'PartyName', 'Name') ??
    personName(party) ??
    failMissing(party, 'cac:PartyTaxScheme/cbc:RegistrationName', file);
  const idElement = [
    ...findAll(party, 'PartyTaxScheme', 'CompanyID'),
    ...findAll(party, 'PartyLegalEntity', 'CompanyID'),
    ...findAll(party, 'PartyIdentification', 'ID'),
  ].find((element) => textOf(element) !== null);
  if (idElement === undefined) failMissing(party, 'cac:PartyTaxScheme/cbc:CompanyID', file);
  const schemeName = attr(idElement, 'schemeName');
  const schemeId = attr(idElement, 'schemeID');
  const identifierType =
    schemeName === null ? (schemeId === null ? 'UNKNOWN' : 'NIT') : (DIAN_ID_TYPES[schemeName] ?? schemeName);
  let identifierNumber = (textOf(idElement) ?? '').replace(/[.\s]/g, '');
  let checkDigit = identifierType === 'NIT' && schemeId !== null && /^\d$/.test(schemeId) ? schemeId : null;
  const withDigit = /^(\d+)-(\d)$/.exec(identifierNumber);
  if (identifierType === 'NIT' && withDigit !== null) {
    // "900123456-7": the digit after the dash is the DV.
    identifierNumber = withDigit[1] ?? identifierNumber;
    checkDigit ??= withDigit[2] ?? null;
  }
  return {
    name,
    identifierType,
    identifierNumber: identifierNumber.replace(/-/g, ''),
    checkDigit,
    email: textAt(party, 'Contact', 'ElectronicMail'),
    phone: textAt(party, 'Contact', 'Telephone'),
    address: formatAddress(
      find(party, 'PhysicalLocation', 'Address') ??
        find(party, 'PartyTaxScheme', 'RegistrationAddress') ??
        find(party, 'PartyLegalEntity', 'RegistrationAddress'),
    ),
  };
}

function personName(party: XmlElement): string | null {
  const person = child(party, 'Person');
  const parts = ['FirstName', 'MiddleName', 'FamilyName'].flatMap((name) => textAt(person, name) ?? []);
  return parts.length === 0 ? null : parts.join(' ');
}

function formatAddress(address: XmlElement | undefined): string | null {
  if (address === undefined) return null;
  const parts = [
    ...findAll(address, 'AddressLine', 'Line').flatMap((line) => textOf(line) ?? []),
    textAt(address, 'CityName'),
    textAt(address, 'CountrySubentity'),
    textAt(address, 'Country', 'IdentificationCode'),
  ].filter((part): part is string => part !== null);
  return parts.length === 0 ? null : parts.join(', ');
}

function parseLine(line: XmlElement, position: number, kind: UblKind, file: string): FiscalLineItem {
  const quantityElement = requireText(line, kind.quantity, `cbc:${kind.quantity}`, file);
  const quantity = decimalAt(quantityElement.value, quantityElement.element.path, file);
  const subtotalCents = requireAmount(line, 'LineExtensionAmount', 'cbc:LineExtensionAmount', file);
  const price = requireChild(line, 'Price', 'cac:Price', file);
  const priceElement = requireText(price, 'PriceAmount', 'cbc:PriceAmount', file);
  const unitPrice = decimalAt(priceElement.value, priceElement.element.path, file);
  const baseQuantity = textAt(price, 'BaseQuantity');

  const item = child(line, 'Item');
  const descriptions = childrenNamed(item, 'Description').flatMap((element) => textOf(element) ?? []);
  const itemName = textAt(item, 'Name');
  const sellersId = textAt(item, 'SellersItemIdentification', 'ID');
  const standardId = find(item, 'StandardItemIdentification', 'ID');
  const code = sellersId ?? textOf(standardId);
  const name = itemName ?? descriptions[0] ?? code ?? `Line ${position}`;
  const extraDescriptions = itemName === null ? descriptions.slice(1) : descriptions;

  const adjustments: FiscalAdjustment[] = [
    ...childrenNamed(line, 'AllowanceCharge').map((element) => parseAllowanceCharge(element, file)),
    ...childrenNamed(line, 'TaxTotal').flatMap((total) => parseTaxTotal(total, 'tax', file)),
    ...childrenNamed(line, 'WithholdingTaxTotal').flatMap((total) => parseTaxTotal(total, 'withholding', file)),
  ];
  const referencePrice = find(line, 'PricingReference', 'AlternativeConditionPrice');

  const metadata: Record<string, unknown> = { lineId: textAt(line, 'ID'), unitPrice };
  if (
    baseQuantity !== null &&
    normalizeDecimal(decimalAt(baseQuantity, childPath(price, 'cbc:BaseQuantity'), file)) !== '1'
  ) {
    metadata['priceBaseQuantity'] = baseQuantity;
  }
  if (textAt(line, 'FreeOfChargeIndicator') === 'true') metadata['freeOfCharge'] = true;
  if (referencePrice !== undefined) {
    metadata['referencePrice'] = {
      amount: textAt(referencePrice, 'PriceAmount'),
      typeCode: textAt(referencePrice, 'PriceTypeCode'),
    };
  }
  if (sellersId !== null) metadata['sellersItemId'] = sellersId;
  if (standardId !== undefined && textOf(standardId) !== null) {
    metadata['standardItemId'] = {
      id: textOf(standardId),
      schemeName: attr(standardId, 'schemeName'),
      schemeId: attr(standardId, 'schemeID'),
    };
  }

  return {
    position,
    name,
    description: extraDescriptions.length === 0 ? null : extraDescriptions.join('\n'),
    code,
    quantity,
    unitCode: attr(quantityElement.element, 'unitCode'),
    unitPriceCents: decimalToCents(unitPrice),
    subtotalCents,
    totalCents: lineTotal(subtotalCents, adjustments),
    adjustments,
    metadata,
  };
}

function parseTaxTotal(total: XmlElement, type: 'tax' | 'withholding', file: string): FiscalAdjustment[] {
  const subtotals = childrenNamed(total, 'TaxSubtotal');
  if (subtotals.length === 0) {
    const amountCents = requireAmount(total, 'TaxAmount', 'cbc:TaxAmount', file);
    return [
      {
        type,
        code: null,
        name: null,
        rate: null,
        ratePercentage: null,
        baseAmountCents: 0n,
        amountCents,
        isInclusive: false,
      },
    ];
  }
  return subtotals.map((subtotal) => {
    const category = child(subtotal, 'TaxCategory');
    const percentElement = child(category, 'Percent') ?? child(subtotal, 'Percent');
    const percentText = textOf(percentElement);
    // Per-unit taxes (e.g. the plastic-bag tax) have a PerUnitAmount and no rate.
    const percent =
      percentText === null || child(subtotal, 'PerUnitAmount') !== undefined
        ? null
        : decimalAt(percentText, percentElement?.path ?? subtotal.path, file);
    const taxable = child(subtotal, 'TaxableAmount');
    return {
      type,
      code: textAt(category, 'TaxScheme', 'ID'),
      name: textAt(category, 'TaxScheme', 'Name'),
      rate: percent === null ? null : percentToFraction(percent),
      ratePercentage: percent === null ? null : normalizeDecimal(percent),
      baseAmountCents: taxable === undefined ? 0n : amountOf(taxable, file),
      amountCents: requireAmount(subtotal, 'TaxAmount', 'cbc:TaxAmount', file),
      isInclusive: false,
    };
  });
}

function parseAllowanceCharge(element: XmlElement, file: string): FiscalAdjustment {
  const indicator = requireText(element, 'ChargeIndicator', 'cbc:ChargeIndicator', file);
  if (indicator.value !== 'true' && indicator.value !== 'false') {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      indicator.element.path,
      `expected true or false, found ${JSON.stringify(indicator.value)}`,
    );
  }
  const base = child(element, 'BaseAmount');
  const factorElement = child(element, 'MultiplierFactorNumeric');
  // DIAN uses MultiplierFactorNumeric as a percentage ("25.00" for 25 %), not as UBL's multiplier.
  const factor =
    textOf(factorElement) === null
      ? null
      : decimalAt(textOf(factorElement) ?? '', factorElement?.path ?? element.path, file);
  return {
    type: indicator.value === 'true' ? 'charge' : 'discount',
    code: textAt(element, 'AllowanceChargeReasonCode'),
    name: textAt(element, 'AllowanceChargeReason'),
    rate: factor === null ? null : percentToFraction(factor),
    ratePercentage: factor === null ? null : normalizeDecimal(factor),
    baseAmountCents: base === undefined ? 0n : amountOf(base, file),
    amountCents: requireAmount(element, 'Amount', 'cbc:Amount', file),
    isInclusive: false,
  };
}

function lineTotal(subtotalCents: bigint, adjustments: FiscalAdjustment[]): bigint {
  let total = subtotalCents;
  for (const adjustment of adjustments) {
    if (adjustment.type === 'tax') total += adjustment.amountCents;
    if (adjustment.type === 'withholding') total -= adjustment.amountCents;
  }
  return total;
}

interface TotalsInput {
  root: XmlElement;
  monetaryTotal: XmlElement;
  lineItems: FiscalLineItem[];
  taxTotals: XmlElement[];
  documentAllowances: { element: XmlElement; adjustment: FiscalAdjustment }[];
  taxTotalCents: bigint;
  withholdingTotalCents: bigint;
  file: string;
}

interface TotalsReading {
  /** Whether the issuer deducted the withholdings from PayableAmount. */
  withholdingsDeducted: boolean;
  prepaid: FiscalPrepaid | null;
  /** The document's total: PayableAmount, plus PrepaidAmount when the issuer subtracted it. */
  totalCents: bigint;
}

/** Refuses totals that do not add up (1 cent of rounding per line); tells how PayableAmount was written. */
function checkTotals(input: TotalsInput): TotalsReading {
  const { root, monetaryTotal, lineItems, taxTotals, documentAllowances, taxTotalCents, withholdingTotalCents, file } =
    input;
  const tolerance = BigInt(Math.max(lineItems.length, 1));
  const lineExtension = requireChild(monetaryTotal, 'LineExtensionAmount', 'cbc:LineExtensionAmount', file);
  const lineExtensionCents = amountOf(lineExtension, file);
  const linesCents = sum(lineItems.map((line) => line.subtotalCents));
  if (centsDistance(linesCents, lineExtensionCents) > tolerance) {
    throw mismatch(
      file,
      lineExtension,
      `is ${centsToDecimal(lineExtensionCents)} but the lines add up to ${centsToDecimal(linesCents)}`,
    );
  }

  for (const total of taxTotals) {
    const subtotals = childrenNamed(total, 'TaxSubtotal');
    if (subtotals.length === 0) continue;
    const amount = requireChild(total, 'TaxAmount', 'cbc:TaxAmount', file);
    const subtotalsCents = sum(
      subtotals.map((subtotal) => requireAmount(subtotal, 'TaxAmount', 'cbc:TaxAmount', file)),
    );
    if (centsDistance(subtotalsCents, amountOf(amount, file)) > BigInt(subtotals.length)) {
      throw mismatch(
        file,
        amount,
        `is ${centsToDecimal(amountOf(amount, file))} but its TaxSubtotal amounts add up to ${centsToDecimal(subtotalsCents)}`,
      );
    }
  }
  const lineTaxes = lineItems.flatMap((line) => line.adjustments.filter((adjustment) => adjustment.type === 'tax'));
  if (lineTaxes.length > 0) {
    const lineTaxCents = sum(lineTaxes.map((adjustment) => adjustment.amountCents));
    if (centsDistance(lineTaxCents, taxTotalCents) > tolerance) {
      const element =
        taxTotals[0] === undefined ? childPath(root, 'cac:TaxTotal') : childPath(taxTotals[0], 'cbc:TaxAmount');
      throw new FiscalDocumentError(
        'totals_mismatch',
        file,
        element,
        `the document taxes add up to ${centsToDecimal(taxTotalCents)} but the line taxes add up to ${centsToDecimal(lineTaxCents)}`,
      );
    }
  }

  const optional = (localName: string): bigint => {
    const element = child(monetaryTotal, localName);
    return element === undefined || textOf(element) === null ? 0n : amountOf(element, file);
  };
  const byType = (type: 'discount' | 'charge'): bigint =>
    sum(
      documentAllowances
        .filter(({ adjustment }) => adjustment.type === type)
        .map(({ adjustment }) => adjustment.amountCents),
    );
  const allowances =
    child(monetaryTotal, 'AllowanceTotalAmount') === undefined ? byType('discount') : optional('AllowanceTotalAmount');
  const charges =
    child(monetaryTotal, 'ChargeTotalAmount') === undefined ? byType('charge') : optional('ChargeTotalAmount');

  const taxInclusive = child(monetaryTotal, 'TaxInclusiveAmount');
  if (taxInclusive !== undefined && textOf(taxInclusive) !== null) {
    const taxInclusiveCents = amountOf(taxInclusive, file);
    // DIAN: lines + taxes. Plain UBL also applies document allowances and charges before taxes.
    const dian = lineExtensionCents + taxTotalCents;
    const ubl = dian - allowances + charges;
    if (centsDistance(taxInclusiveCents, dian) > tolerance && centsDistance(taxInclusiveCents, ubl) > tolerance) {
      throw mismatch(
        file,
        taxInclusive,
        `is ${centsToDecimal(taxInclusiveCents)} but LineExtensionAmount + taxes is ${centsToDecimal(dian)}`,
      );
    }
  }

  const payable = requireChild(monetaryTotal, 'PayableAmount', 'cbc:PayableAmount', file);
  const payableCents = amountOf(payable, file);
  const total = lineExtensionCents + taxTotalCents - allowances + charges + optional('PayableRoundingAmount');
  const prepaidCents = optional('PrepaidAmount');
  if (prepaidCents < 0n || prepaidCents > total) {
    throw mismatch(
      file,
      child(monetaryTotal, 'PrepaidAmount') ?? payable,
      `is ${centsToDecimal(prepaidCents)}, outside 0 to the total of ${centsToDecimal(total)}`,
    );
  }
  // PayableAmount is the total less the prepaid amount (UBL's definition, tried first) or, when the issuer did not
  // subtract it, the total; either may also have the withholdings deducted.
  const conventions: readonly PrepaidConvention[] =
    prepaidCents === 0n ? [PREPAID_CONVENTIONS[0]] : PREPAID_CONVENTIONS;
  const deductions = withholdingTotalCents > 0n ? [false, true] : [false];
  const reading = conventions
    .flatMap((convention) => deductions.map((withholdingsDeducted) => ({ convention, withholdingsDeducted })))
    .find(({ convention, withholdingsDeducted }) => {
      const expected =
        total -
        (convention === 'payable_net_of_prepaid' ? prepaidCents : 0n) -
        (withholdingsDeducted ? withholdingTotalCents : 0n);
      return centsDistance(payableCents, expected) <= tolerance;
    });
  if (reading === undefined) {
    const expected = `LineExtensionAmount + taxes − allowances + charges is ${centsToDecimal(total)}`;
    throw mismatch(
      file,
      payable,
      `is ${centsToDecimal(payableCents)} but ${expected}${prepaidCents === 0n ? '' : `, ${centsToDecimal(total - prepaidCents)} once PrepaidAmount is subtracted`}`,
    );
  }
  return {
    withholdingsDeducted: reading.withholdingsDeducted,
    prepaid: prepaidCents === 0n ? null : { amountCents: prepaidCents, convention: reading.convention },
    totalCents: payableCents + (reading.convention === 'payable_net_of_prepaid' ? prepaidCents : 0n),
  };
}

function mismatch(file: string, element: XmlElement, detail: string): FiscalDocumentError {
  return new FiscalDocumentError(
    'totals_mismatch',
    file,
    element.path,
    `the totals do not add up: ${element.name} ${detail}`,
  );
}

function readDueDate(root: XmlElement, file: string): string | null {
  const candidates = [
    ...findAll(root, 'PaymentMeans', 'PaymentDueDate'),
    ...findAll(root, 'PaymentTerms', 'PaymentDueDate'),
    ...findAll(root, 'PaymentTerms', 'SettlementPeriod', 'EndDate'),
    ...childrenNamed(root, 'DueDate'),
  ];
  for (const element of candidates) {
    const value = textOf(element);
    if (value !== null) return dateAt(value, element.path, file);
  }
  return null;
}

function readPaymentTermsDays(root: XmlElement): string | null {
  const duration = find(root, 'PaymentTerms', 'SettlementPeriod', 'DurationMeasure');
  return duration !== undefined && attr(duration, 'unitCode') === 'DAY' ? textOf(duration) : null;
}

function readExchangeRate(root: XmlElement, currency: string, file: string): DianExchange {
  const rate = child(root, 'PaymentExchangeRate');
  if (rate === undefined) return dianExchange(null, currency, file, root.path);
  const calculation = requireText(rate, 'CalculationRate', 'cbc:CalculationRate', file);
  const date = child(rate, 'Date');
  const dateText = textOf(date);
  return dianExchange(
    {
      rate: calculation.value,
      sourceCurrency: requireText(rate, 'SourceCurrencyCode', 'cbc:SourceCurrencyCode', file).value,
      targetCurrency: requireText(rate, 'TargetCurrencyCode', 'cbc:TargetCurrencyCode', file).value,
      date: date === undefined || dateText === null ? null : dateAt(dateText, date.path, file),
      element: rate.path,
    },
    currency,
    file,
    root.path,
  );
}

function readReferences(
  root: XmlElement,
  discrepancies: { referenceId: string | null; responseCode: string | null; description: string | null }[],
): FiscalReferenceToOther[] {
  const relationFor = (documentNumber: string | null): string | null => {
    const matching = discrepancies.find(
      (discrepancy) => discrepancy.referenceId !== null && discrepancy.referenceId === documentNumber,
    );
    return (matching ?? (discrepancies.length === 1 ? discrepancies[0] : undefined))?.responseCode ?? null;
  };
  const references = childrenNamed(root, 'BillingReference').flatMap((billing) =>
    billing.children
      .filter((element) => element.localName.endsWith('DocumentReference'))
      .map((element) => {
        const documentNumber = textAt(element, 'ID');
        return {
          documentNumber,
          fiscalReference: textAt(element, 'UUID')?.toLowerCase() ?? null,
          issueDate: textAt(element, 'IssueDate'),
          relation: relationFor(documentNumber),
        };
      }),
  );
  if (references.length > 0) return references;
  // Notes without BillingReference may still name the corrected document in DiscrepancyResponse.
  return discrepancies
    .filter((discrepancy) => discrepancy.referenceId !== null)
    .map((discrepancy) => ({
      documentNumber: discrepancy.referenceId,
      fiscalReference: null,
      issueDate: null,
      relation: discrepancy.responseCode,
    }));
}

function requireAmount(parent: XmlElement, localName: string, qualifiedName: string, file: string): bigint {
  return amountOf(requireText(parent, localName, qualifiedName, file).element, file);
}

function amountOf(element: XmlElement, file: string): bigint {
  const value = textOf(element);
  if (value === null)
    throw new FiscalDocumentError('missing_element', file, element.path, `required amount ${element.name} is empty`);
  return centsAt(value, element.path, file);
}

function sum(values: bigint[]): bigint {
  return values.reduce((total, value) => total + value, 0n);
}

function failMissing(parent: XmlElement, qualifiedName: string, file: string): never {
  throw new FiscalDocumentError(
    'missing_element',
    file,
    childPath(parent, qualifiedName),
    `required element ${qualifiedName} is missing`,
  );
}
