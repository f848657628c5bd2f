// DIAN documento soporte (Invoice with InvoiceTypeCode 05): the acquirer's own record of a purchase from someone not
// obliged to invoice. Read like an invoice, plus who the seller is, its CUDS and its numbering resolution.

import { cudsOf, type CudsParts } from './cufe.ts';
import { FiscalDocumentError } from './errors.ts';
import { centsToDecimal, decimalToCents, isDecimal, twoDecimalsTruncated } from './money.ts';
import type { FiscalParseContext, FiscalParty, FiscalResolution, SupportDocumentFacts } from './normalized-document.ts';
import { child, childrenNamed, find, textAt, textOf, type XmlElement } from './xml.ts';

/** `cbc:InvoiceTypeCode` of a documento soporte. */
export const SUPPORT_DOCUMENT_TYPE_CODE = '05';

/** Whether a UBL Invoice is a documento soporte: its type code says so, whatever its ProfileID's wording. */
export function isSupportDocument(root: XmlElement): boolean {
  return root.localName === 'Invoice' && textAt(root, 'InvoiceTypeCode') === SUPPORT_DOCUMENT_TYPE_CODE;
}

export interface SupportDocumentInput {
  root: XmlElement;
  file: string;
  documentNumber: string;
  /** The CUDS, already checked to be 96 hexadecimal characters, lowercase. */
  cuds: string;
  /** `cbc:UUID`, where a CUDS that does not match is pointed at. */
  cudsElement: XmlElement;
  /** The parties as the file places them. */
  supplierParty: FiscalParty;
  customerParty: FiscalParty;
  monetaryTotal: XmlElement;
  context: FiscalParseContext;
}

/**
 * The documento soporte's facts. DIAN's annex puts the seller in AccountingSupplierParty and the acquirer (who
 * issues and signs it) in AccountingCustomerParty; a file with the roles the other way round is recognised by the
 * company's own NIT, so that the seller is always the one paid. The CUDS is recomputed when the file was issued with
 * the software the service holds the PIN of, and a CUDS that does not match is refused; otherwise only its shape is
 * known to be right, as for a CUFE.
 */
export function readSupportDocument(input: SupportDocumentInput): SupportDocumentFacts {
  const { root, file, context } = input;
  const ownTaxId = context.ownTaxId ? taxIdDigits(context.ownTaxId) : null;
  const isOwn = (party: FiscalParty) => ownTaxId !== null && taxIdDigits(party.identifierNumber) === ownTaxId;
  const partiesReversed = isOwn(input.supplierParty) && !isOwn(input.customerParty);
  const seller = partiesReversed ? input.customerParty : input.supplierParty;
  const buyer = partiesReversed ? input.supplierParty : input.customerParty;
  const issueDate = textAt(root, 'IssueDate') ?? '';
  const profileExecutionId = textAt(root, 'ProfileExecutionID');
  const extensions = find(root, 'UBLExtensions', 'UBLExtension', 'ExtensionContent', 'DianExtensions');
  const softwareId = textAt(extensions, 'SoftwareProvider', 'SoftwareID');
  const software = context.dianSoftware;

  let cudsCheck: SupportDocumentFacts['cudsCheck'] = 'format';
  if (software && softwareId === software.id) {
    const expected = cudsOf({
      documentNumber: input.documentNumber,
      issueDate,
      issueTime: textAt(root, 'IssueTime') ?? '',
      subtotal: amountText(textAt(input.monetaryTotal, 'LineExtensionAmount')),
      iva: ivaOf(root),
      total: amountText(textAt(input.monetaryTotal, 'PayableAmount')),
      sellerId: seller.identifierNumber,
      buyerNit: buyer.identifierNumber,
      softwarePin: software.pin,
      environment: profileExecutionId ?? '',
    } satisfies CudsParts);
    if (expected !== input.cuds) {
      throw new FiscalDocumentError(
        'invalid_fiscal_reference',
        file,
        input.cudsElement.path,
        `the CUDS does not match the document: issued with software ${software.id}, its number, date, time, amounts and parties give ${expected}`,
      );
    }
    cudsCheck = 'recomputed';
  }

  return {
    documentNumber: input.documentNumber,
    issueDate,
    cuds: input.cuds,
    cudsCheck,
    seller,
    buyer,
    partiesReversed,
    resolution: readResolution(extensions),
    environment: profileExecutionId === '1' ? 'production' : profileExecutionId === '2' ? 'test' : null,
  };
}

/** A NIT as digits only, without its check digit when written after a dash ("900.123.456-7" → "900123456"). */
function taxIdDigits(value: string): string {
  return value.trim().replace(/-\d$/, '').replace(/\D/g, '');
}

/** An amount of the composition; one the totals check already read, so it is a decimal. */
function amountText(value: string | null): string {
  return value !== null && isDecimal(value) ? twoDecimalsTruncated(value) : '0.00';
}

/** ValImp1: the document's IVA, the TaxTotals whose scheme is 01, each amount cut to cents. */
function ivaOf(root: XmlElement): string {
  const amounts = childrenNamed(root, 'TaxTotal')
    .filter((total) =>
      childrenNamed(total, 'TaxSubtotal').some(
        (subtotal) => textAt(subtotal, 'TaxCategory', 'TaxScheme', 'ID') === '01',
      ),
    )
    .map((total) => textAt(total, 'TaxAmount'));
  const cents = amounts.reduce((sum, amount) => sum + decimalToCents(amountText(amount)), 0n);
  return centsToDecimal(cents);
}

function readResolution(extensions: XmlElement | undefined): FiscalResolution | null {
  const control = child(extensions, 'InvoiceControl');
  if (control === undefined) return null;
  const period = child(control, 'AuthorizationPeriod');
  const range = child(control, 'AuthorizedInvoices');
  return {
    number: textOf(child(control, 'InvoiceAuthorization')),
    validFrom: textAt(period, 'StartDate'),
    validTo: textAt(period, 'EndDate'),
    prefix: textAt(range, 'Prefix'),
    rangeFrom: textAt(range, 'From'),
    rangeTo: textAt(range, 'To'),
  };
}
