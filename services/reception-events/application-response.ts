// The UBL 2.1 ApplicationResponse a RADIAN event is (Anexo Técnico RADIAN v1.1 §3, official 030-034 examples), as
// XML: DIAN's extensions (the software and its security code) in the first UBLExtension, an empty second one for the
// XAdES signature, then the header with the CUDE and the response. fast-xml-parser writes it, escaping included.

import { XMLBuilder } from 'fast-xml-parser';
import { eventCude, softwareSecurityCode } from '../../fiscal/event-cude.ts';
import { carriesPerson, dianCheckDigit, type RadianPerson } from '../../fiscal/radian-person.ts';
import { bogotaTime } from '../../fiscal/radian-rules.ts';

export type EventCode = '030' | '031' | '032' | '033' | '034';

/** DIAN's NIT: the receiver of a tacit acceptance (034). */
export const DIAN_NIT = '800197268';

/** `cac:Response/cbc:Description` of each event, as in DIAN's examples. */
export const EVENT_DESCRIPTIONS: Record<EventCode, string> = {
  '030': 'Acuse de recibo de Factura Electrónica de Venta',
  '031': 'Reclamo de la Factura Electrónica de Venta',
  '032': 'Recibo del bien y/o prestación del servicio',
  '033': 'Aceptación expresa',
  '034': 'Aceptación Tácita',
};

/** The claim concepts of 031 (list "Concepto de Reclamo"). */
export const CLAIM_CONCEPTS: Record<string, string> = {
  '01': 'Documento con inconsistencias',
  '02': 'Mercancía no entregada totalmente',
  '03': 'Mercancía no entregada parcialmente',
  '04': 'Servicio no prestado',
};

export interface Party {
  name: string;
  /** NIT without check digit. */
  nit: string;
}

export interface EventRendition {
  eventCode: EventCode;
  /** The event's own number: unique per event type (the row id and round make it so). */
  eventNumber: string;
  signedAt: Date;
  /** 1 production, 2 test (habilitación). */
  profileExecutionId: '1' | '2';
  /** The buyer: the company sending the event. */
  sender: Party;
  /** The seller (issuer of the invoice); DIAN for a tacit acceptance. */
  receiver: Party;
  invoice: { number: string; cufe: string };
  claim: { code: string; description: string } | null;
  /** Who receives for the buyer: required in 030 and 032, left out of the others. */
  person: RadianPerson | null;
  /** The software DIAN registered: its id, its PIN (in the CUDE, never written) and its provider's NIT. */
  software: { id: string; pin: string; providerNit: string };
}

/** A NIT as DIAN's CompanyID wants it: digits only, without the check digit after a dash. */
export function bareNit(value: string | null | undefined): string {
  return (value ?? '').split('-', 1)[0]!.replace(/\D/g, '');
}

const DIAN_AGENCY = {
  '@_schemeAgencyID': '195',
  '@_schemeAgencyName': 'CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)',
};

/** A NIT as `cbc:CompanyID` and `sts:ProviderID` carry it: the number, its check digit in `@schemeID`, scheme 31. */
const nitElement = (nit: string) => ({
  ...DIAN_AGENCY,
  ...(dianCheckDigit(nit) === null ? {} : { '@_schemeID': dianCheckDigit(nit) }),
  '@_schemeName': '31',
  '#text': nit,
});

const partyTaxScheme = (party: Party) => ({
  'cac:PartyTaxScheme': {
    'cbc:RegistrationName': party.name,
    'cbc:CompanyID': nitElement(party.nit),
    'cac:TaxScheme': { 'cbc:ID': '01', 'cbc:Name': 'IVA' },
  },
});

/** `cac:IssuerParty/cac:Person` as the official 030 example writes it: the ID's check digit in `@schemeID`, when numeric. */
function issuerParty(person: RadianPerson) {
  const checkDigit = dianCheckDigit(person.idNumber);
  return {
    'cac:Person': {
      'cbc:ID': {
        ...(checkDigit === null ? {} : { '@_schemeID': checkDigit }),
        '@_schemeName': person.idType,
        '#text': person.idNumber,
      },
      'cbc:FirstName': person.firstName,
      'cbc:FamilyName': person.familyName,
      'cbc:JobTitle': person.jobTitle,
      'cbc:OrganizationDepartment': person.department,
    },
  };
}

/** `sts:DianExtensions` of an event: as an invoice's, without InvoiceControl. */
const dianExtensions = (event: EventRendition) => ({
  'sts:DianExtensions': {
    'sts:InvoiceSource': {
      'cbc:IdentificationCode': {
        '@_listAgencyID': '6',
        '@_listAgencyName': 'United Nations Economic Commission for Europe',
        '@_listSchemeURI': 'urn:oasis:names:specification:ubl:codelist:gc:CountryIdentificationCode-2.1',
        '#text': 'CO',
      },
    },
    'sts:SoftwareProvider': {
      'sts:ProviderID': nitElement(event.software.providerNit),
      'sts:SoftwareID': { ...DIAN_AGENCY, '#text': event.software.id },
    },
    'sts:SoftwareSecurityCode': {
      ...DIAN_AGENCY,
      '#text': softwareSecurityCode(event.software.id, event.software.pin, event.eventNumber),
    },
    'sts:AuthorizationProvider': { 'sts:AuthorizationProviderID': nitElement(DIAN_NIT) },
  },
});

const NAMESPACES = {
  '@_xmlns': 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2',
  '@_xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  '@_xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  '@_xmlns:ds': 'http://www.w3.org/2000/09/xmldsig#',
  '@_xmlns:ext': 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2',
  '@_xmlns:sts': 'dian:gov:co:facturaelectronica:Structures-2-1',
  '@_xmlns:xades': 'http://uri.etsi.org/01903/v1.3.2#',
  '@_xmlns:xades141': 'http://uri.etsi.org/01903/v1.4.1#',
};

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: false });

export interface ApplicationResponseXml {
  /** The document, ready for its XAdES signature in the second UBLExtension. */
  xml: string;
  cude: string;
  eventNumber: string;
}

/** The ApplicationResponse of one event, with its CUDE. Throws for a 030 or 032 without its person, which DIAN refuses. */
export function applicationResponse(event: EventRendition): ApplicationResponseXml {
  if (carriesPerson(event.eventCode) && !event.person)
    throw new Error(`Event ${event.eventCode} needs the person who receives for the buyer`);
  const stamp = bogotaTime(event.signedAt);
  const [issueDate, issueTime] = [stamp.slice(0, 10), stamp.slice(11)];
  const cude = eventCude({
    eventNumber: event.eventNumber,
    issueDate,
    issueTime,
    senderNit: event.sender.nit,
    receiverNit: event.receiver.nit,
    responseCode: event.eventCode,
    invoiceNumber: event.invoice.number,
    documentTypeCode: '01',
    softwarePin: event.software.pin,
  });
  const notes: string[] = [];
  if (event.eventCode === '031' && event.claim) notes.push(event.claim.description);
  if (event.eventCode === '034') {
    notes.push(
      'Manifiesto bajo la gravedad de juramento que transcurridos 3 días hábiles siguientes a la fecha de recepción ' +
        `de la mercancía o del servicio en la referida factura de este evento, el adquirente ${event.sender.name} ` +
        `identificado con NIT ${event.sender.nit} no manifestó expresamente la aceptación o rechazo de la referida factura, ` +
        'ni reclamó en contra de su contenido.',
    );
  }
  const responseCode =
    event.eventCode === '031' && event.claim
      ? { '@_name': CLAIM_CONCEPTS[event.claim.code] ?? '', '@_listID': event.claim.code, '#text': '031' }
      : event.eventCode;
  const document = {
    ApplicationResponse: {
      ...NAMESPACES,
      'ext:UBLExtensions': {
        'ext:UBLExtension': [{ 'ext:ExtensionContent': dianExtensions(event) }, { 'ext:ExtensionContent': '' }],
      },
      'cbc:UBLVersionID': 'UBL 2.1',
      'cbc:CustomizationID': '1',
      'cbc:ProfileID': 'DIAN 2.1: ApplicationResponse de la Factura Electrónica de Venta',
      'cbc:ProfileExecutionID': event.profileExecutionId,
      'cbc:ID': event.eventNumber,
      'cbc:UUID': { '@_schemeID': event.profileExecutionId, '@_schemeName': 'CUDE-SHA384', '#text': cude },
      'cbc:IssueDate': issueDate,
      'cbc:IssueTime': issueTime,
      ...(notes.length ? { 'cbc:Note': notes } : {}),
      'cac:SenderParty': partyTaxScheme(event.sender),
      'cac:ReceiverParty': partyTaxScheme(event.receiver),
      'cac:DocumentResponse': {
        'cac:Response': { 'cbc:ResponseCode': responseCode, 'cbc:Description': EVENT_DESCRIPTIONS[event.eventCode] },
        'cac:DocumentReference': {
          'cbc:ID': event.invoice.number,
          'cbc:UUID': { '@_schemeName': 'CUFE-SHA384', '#text': event.invoice.cufe },
          'cbc:DocumentTypeCode': '01',
        },
        ...(event.person && carriesPerson(event.eventCode) ? { 'cac:IssuerParty': issuerParty(event.person) } : {}),
      },
    },
  };
  const xml = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>${builder.build(document) as string}`;
  return { xml, cude, eventNumber: event.eventNumber };
}
