import { createHash } from 'node:crypto';
import { amount, ublTaxTotal } from '../helpers/dian-invoices.ts';

// DIAN documentos soporte (UBL Invoice, InvoiceTypeCode 05) built at run time: no public sample carries a CUDS that
// can be recomputed, so the builder writes the file and computes its CUDS the way DIAN's annex composes it.

/** The root element's start tag, with the namespaces of UBL's invoice and components and of DIAN's extensions. */
const INVOICE_OPEN = [
  '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"',
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"',
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"',
  'xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"',
  'xmlns:sts="dian:gov:co:facturaelectronica:Structures-2-1">',
].join(' ');

/** Every party's address. */
const ADDRESS =
  '<cac:PhysicalLocation><cac:Address><cbc:CityName>Bogotá</cbc:CityName>' +
  '<cac:AddressLine><cbc:Line>Calle 10 # 5-20</cbc:Line></cac:AddressLine>' +
  '<cac:Country><cbc:IdentificationCode>CO</cbc:IdentificationCode></cac:Country></cac:Address></cac:PhysicalLocation>';

export interface SupportDocumentParty {
  name: string;
  /** DIAN identity document type code: 13 cédula, 31 NIT, 22 cédula de extranjería... */
  typeCode: string;
  number: string;
  /** The NIT check digit, for type 31. */
  checkDigit?: string;
  email?: string;
}

export interface SupportDocumentOptions {
  documentNumber: string;
  /** The seller not obliged to invoice. */
  seller: SupportDocumentParty;
  /** The acquirer: the company that issues the document. */
  buyer: SupportDocumentParty;
  /** Each line's description and amount before tax, in cents. */
  lines: { description: string; cents: bigint }[];
  /** IVA percentage applied to every line; 0 (the default) writes no tax. */
  ivaPercent?: number;
  issueDate?: string;
  issueTime?: string;
  /** The software that issued it, whose PIN enters the CUDS. */
  software: { id: string; pin: string };
  /** ProfileExecutionID: 1 production, 2 test (the default). */
  environment?: '1' | '2';
  /** Writes the company as AccountingSupplierParty and the seller as AccountingCustomerParty. */
  reverseParties?: boolean;
  /** A CUDS to write instead of the right one. */
  cuds?: string;
}

export interface SupportDocumentFile {
  xml: string;
  cuds: string;
  /** What is owed, in cents: the lines plus their IVA. */
  totalCents: bigint;
}

const sha384 = (text: string) => createHash('sha384').update(text, 'utf8').digest('hex');

/** A documento soporte whose totals add up and whose CUDS is SHA-384 of its composition (unless `cuds` is given). */
export function supportDocumentXml(options: SupportDocumentOptions): SupportDocumentFile {
  const issueDate = options.issueDate ?? '2026-11-03';
  const issueTime = options.issueTime ?? '10:15:00-05:00';
  const environment = options.environment ?? '2';
  const percent = options.ivaPercent ?? 0;
  const lines = options.lines.map((line) => ({
    ...line,
    taxCents: (line.cents * BigInt(percent * 100) + 5000n) / 10000n,
  }));
  const subtotal = lines.reduce((sum, line) => sum + line.cents, 0n);
  const tax = lines.reduce((sum, line) => sum + line.taxCents, 0n);
  const total = subtotal + tax;
  // NumDS + FecDS + HorDS + ValDS + CodImp1 + ValImp1 + ValTot + NumSNO + NITABS + Software-PIN + TipoAmbiente.
  const rightCuds = sha384(
    `${options.documentNumber}${issueDate}${issueTime}${amount(subtotal)}01${amount(tax)}${amount(total)}` +
      `${options.seller.number}${options.buyer.number}${options.software.pin}${environment}`,
  );
  const cuds = options.cuds ?? rightCuds;
  const [supplier, customer] = options.reverseParties
    ? [options.buyer, options.seller]
    : [options.seller, options.buyer];
  const taxTotal = (base: bigint, taxCents: bigint) => ublTaxTotal(base, taxCents, percent);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
${INVOICE_OPEN}
  <ext:UBLExtensions>
    <ext:UBLExtension>
      <ext:ExtensionContent>
        <sts:DianExtensions>
          <sts:InvoiceControl>
            <sts:InvoiceAuthorization>18760000002</sts:InvoiceAuthorization>
            <sts:AuthorizationPeriod><cbc:StartDate>2026-01-01</cbc:StartDate><cbc:EndDate>2027-12-31</cbc:EndDate></sts:AuthorizationPeriod>
            <sts:AuthorizedInvoices><sts:Prefix>DS</sts:Prefix><sts:From>1</sts:From><sts:To>5000</sts:To></sts:AuthorizedInvoices>
          </sts:InvoiceControl>
          <sts:InvoiceSource><cbc:IdentificationCode>CO</cbc:IdentificationCode></sts:InvoiceSource>
          <sts:SoftwareProvider>
            <sts:ProviderID schemeID="${options.buyer.checkDigit ?? ''}" schemeName="31">${options.buyer.number}</sts:ProviderID>
            <sts:SoftwareID>${options.software.id}</sts:SoftwareID>
          </sts:SoftwareProvider>
          <sts:SoftwareSecurityCode>${sha384(`${options.software.id}${options.software.pin}${options.documentNumber}`)}</sts:SoftwareSecurityCode>
          <sts:AuthorizationProvider><sts:AuthorizationProviderID schemeID="4" schemeName="31">800197268</sts:AuthorizationProviderID></sts:AuthorizationProvider>
        </sts:DianExtensions>
      </ext:ExtensionContent>
    </ext:UBLExtension>
  </ext:UBLExtensions>
  <cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID>
  <cbc:CustomizationID>10</cbc:CustomizationID>
  <cbc:ProfileID>DIAN 2.1: documento soporte en adquisiciones efectuadas a no obligados a facturar.</cbc:ProfileID>
  <cbc:ProfileExecutionID>${environment}</cbc:ProfileExecutionID>
  <cbc:ID>${options.documentNumber}</cbc:ID>
  <cbc:UUID schemeID="${environment}" schemeName="CUDS-SHA384">${cuds}</cbc:UUID>
  <cbc:IssueDate>${issueDate}</cbc:IssueDate>
  <cbc:IssueTime>${issueTime}</cbc:IssueTime>
  <cbc:InvoiceTypeCode>05</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>COP</cbc:DocumentCurrencyCode>
  <cbc:LineCountNumeric>${lines.length}</cbc:LineCountNumeric>
  <cac:AccountingSupplierParty>${party(supplier)}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party(customer)}</cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:ID>1</cbc:ID><cbc:PaymentMeansCode>10</cbc:PaymentMeansCode></cac:PaymentMeans>
  ${percent > 0 ? taxTotal(subtotal, tax) : ''}
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="COP">${amount(subtotal)}</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="COP">${amount(percent > 0 ? subtotal : 0n)}</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="COP">${amount(total)}</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="COP">${amount(total)}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  ${lines
    .map(
      (line, index) => `<cac:InvoiceLine>
    <cbc:ID>${index + 1}</cbc:ID>
    <cbc:InvoicedQuantity unitCode="94">1</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="COP">${amount(line.cents)}</cbc:LineExtensionAmount>
    ${percent > 0 ? taxTotal(line.cents, line.taxCents) : ''}
    <cac:Item><cbc:Description>${line.description}</cbc:Description></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="COP">${amount(line.cents)}</cbc:PriceAmount><cbc:BaseQuantity unitCode="94">1</cbc:BaseQuantity></cac:Price>
  </cac:InvoiceLine>`,
    )
    .join('\n  ')}
</Invoice>
`;
  return { xml, cuds, totalCents: total };
}

function party(person: SupportDocumentParty): string {
  const digit = person.checkDigit === undefined ? '' : ` schemeID="${person.checkDigit}"`;
  const id = `<cbc:CompanyID schemeAgencyID="195"${digit} schemeName="${person.typeCode}">${person.number}</cbc:CompanyID>`;
  const taxScheme =
    `<cac:PartyTaxScheme><cbc:RegistrationName>${person.name}</cbc:RegistrationName>${id}` +
    '<cbc:TaxLevelCode>R-99-PN</cbc:TaxLevelCode><cac:TaxScheme><cbc:ID>ZZ</cbc:ID><cbc:Name>No aplica</cbc:Name></cac:TaxScheme>' +
    '</cac:PartyTaxScheme>';
  return `<cbc:AdditionalAccountID>${person.typeCode === '31' ? '1' : '2'}</cbc:AdditionalAccountID>
    <cac:Party>
      ${ADDRESS}
      ${taxScheme}
      <cac:PartyLegalEntity><cbc:RegistrationName>${person.name}</cbc:RegistrationName>${id}</cac:PartyLegalEntity>
      ${person.email ? `<cac:Contact><cbc:ElectronicMail>${person.email}</cbc:ElectronicMail></cac:Contact>` : ''}
    </cac:Party>`;
}
