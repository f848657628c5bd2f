import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A DIAN invoice (UBL 2.1, InvoiceTypeCode 01) built at run time with the lines, supplier and purchase order a test
// needs. A receiver cannot recompute a supplier's CUFE, so the importer checks its shape only: a random one is used.

export interface InvoiceLineSpec {
  description: string;
  /** The seller's item code (`SellersItemIdentification`), matched to ERP products. */
  code?: string;
  quantity: number;
  unitPriceCents: bigint;
}

export interface DianInvoiceSpec {
  documentNumber: string;
  supplier: { name: string; nit: string };
  /** The company's NIT. */
  buyerNit?: string;
  lines: InvoiceLineSpec[];
  /** IVA on every line; 0 writes none. */
  ivaPercent?: number;
  purchaseOrder?: string;
}

/** The root element's start tag, with the namespaces of UBL's invoice and components. */
const INVOICE_OPEN = [
  '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"',
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"',
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">',
].join(' ');

/** Cents as UBL writes an amount. */
export const amount = (cents: bigint) => `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;

/** A `cac:TaxTotal` of IVA at `percent` on `base`, in pesos. */
export const ublTaxTotal = (base: bigint, taxCents: bigint, percent: bigint | number) =>
  `<cac:TaxTotal><cbc:TaxAmount currencyID="COP">${amount(taxCents)}</cbc:TaxAmount>` +
  `<cac:TaxSubtotal><cbc:TaxableAmount currencyID="COP">${amount(base)}</cbc:TaxableAmount>` +
  `<cbc:TaxAmount currencyID="COP">${amount(taxCents)}</cbc:TaxAmount>` +
  `<cac:TaxCategory><cbc:Percent>${percent}.00</cbc:Percent>` +
  '<cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:TaxCategory>' +
  '</cac:TaxSubtotal></cac:TaxTotal>';

function party(name: string, nit: string): string {
  const id = `<cbc:CompanyID schemeAgencyID="195" schemeID="1" schemeName="31">${nit}</cbc:CompanyID>`;
  const taxScheme =
    `<cac:PartyTaxScheme><cbc:RegistrationName>${name}</cbc:RegistrationName>${id}<cbc:TaxLevelCode>O-13</cbc:TaxLevelCode>` +
    '<cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:PartyTaxScheme>';
  return `<cbc:AdditionalAccountID>1</cbc:AdditionalAccountID>
    <cac:Party>
      ${taxScheme}
      <cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName>${id}</cac:PartyLegalEntity>
    </cac:Party>`;
}

/** The invoice's XML and what it owes (lines plus IVA), in cents. */
export function dianInvoiceXml(spec: DianInvoiceSpec): { xml: string; totalCents: bigint; cufe: string } {
  const percent = BigInt(spec.ivaPercent ?? 0);
  const lines = spec.lines.map((line) => {
    const cents = line.unitPriceCents * BigInt(line.quantity);
    return { ...line, cents, taxCents: (cents * percent * 100n + 5000n) / 10000n };
  });
  const subtotal = lines.reduce((sum, line) => sum + line.cents, 0n);
  const tax = lines.reduce((sum, line) => sum + line.taxCents, 0n);
  const total = subtotal + tax;
  const cufe = createHash('sha384').update(randomBytes(16)).digest('hex');
  const taxTotal = (base: bigint, taxCents: bigint) => ublTaxTotal(base, taxCents, percent);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
${INVOICE_OPEN}
  <cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID>
  <cbc:CustomizationID>10</cbc:CustomizationID>
  <cbc:ProfileID>DIAN 2.1: Factura Electrónica de Venta</cbc:ProfileID>
  <cbc:ProfileExecutionID>2</cbc:ProfileExecutionID>
  <cbc:ID>${spec.documentNumber}</cbc:ID>
  <cbc:UUID schemeID="2" schemeName="CUFE-SHA384">${cufe}</cbc:UUID>
  <cbc:IssueDate>2026-11-20</cbc:IssueDate>
  <cbc:IssueTime>10:15:00-05:00</cbc:IssueTime>
  <cbc:InvoiceTypeCode>01</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>COP</cbc:DocumentCurrencyCode>
  <cbc:LineCountNumeric>${lines.length}</cbc:LineCountNumeric>
  ${spec.purchaseOrder ? `<cac:OrderReference><cbc:ID>${spec.purchaseOrder}</cbc:ID></cac:OrderReference>` : ''}
  <cac:AccountingSupplierParty>${party(spec.supplier.name, spec.supplier.nit)}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party('Test Company', spec.buyerNit ?? '900000001')}</cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:ID>1</cbc:ID><cbc:PaymentMeansCode>10</cbc:PaymentMeansCode></cac:PaymentMeans>
  ${percent > 0n ? taxTotal(subtotal, tax) : ''}
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="COP">${amount(subtotal)}</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="COP">${amount(percent > 0n ? subtotal : 0n)}</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="COP">${amount(total)}</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="COP">${amount(total)}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  ${lines
    .map(
      (line, index) => `<cac:InvoiceLine>
    <cbc:ID>${index + 1}</cbc:ID>
    <cbc:InvoicedQuantity unitCode="94">${line.quantity}</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="COP">${amount(line.cents)}</cbc:LineExtensionAmount>
    ${percent > 0n ? taxTotal(line.cents, line.taxCents) : ''}
    <cac:Item><cbc:Description>${line.description}</cbc:Description>${line.code ? `<cac:SellersItemIdentification><cbc:ID>${line.code}</cbc:ID></cac:SellersItemIdentification>` : ''}</cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="COP">${amount(line.unitPriceCents)}</cbc:PriceAmount><cbc:BaseQuantity unitCode="94">1</cbc:BaseQuantity></cac:Price>
  </cac:InvoiceLine>`,
    )
    .join('\n  ')}
</Invoice>
`;
  return { xml, totalCents: total, cufe };
}

/** Writes the invoice to a file of its own, for `ops documents import`. */
export function writeDianInvoice(spec: DianInvoiceSpec): { path: string; totalCents: bigint; cufe: string } {
  const built = dianInvoiceXml(spec);
  const path = join(tmpdir(), `invoice-${spec.documentNumber}-${built.cufe.slice(0, 8)}.xml`);
  writeFileSync(path, built.xml);
  return { path, totalCents: built.totalCents, cufe: built.cufe };
}
