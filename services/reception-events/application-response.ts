// The JSON rendition of the UBL 2.1 ApplicationResponse a RADIAN event is (Anexo Técnico RADIAN v1.1 §3, official
// 030-034 examples): element names as in the XML, attributes beside a `value`. Unsigned: the signature (XAdES-EPES)
// and the software PIN belong to whoever holds the certificate at the DIAN end of the adapter.

import { eventCude } from '../../fiscal/event-cude.ts';
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
}

/** A NIT as DIAN's CompanyID wants it: digits only, without the check digit after a dash. */
export function bareNit(value: string | null | undefined): string {
  return (value ?? '').split('-', 1)[0]!.replace(/\D/g, '');
}

const partyTaxScheme = (party: Party) => ({
  PartyTaxScheme: {
    RegistrationName: party.name,
    CompanyID: { schemeAgencyID: '195', schemeName: '31', value: party.nit },
    TaxScheme: { ID: '01', Name: 'IVA' },
  },
});

/** `cac:IssuerParty/cac:Person` as the official 030 example writes it: the ID's check digit in `@schemeID`, when numeric. */
function issuerParty(person: RadianPerson) {
  const checkDigit = dianCheckDigit(person.idNumber);
  return {
    Person: {
      ID: {
        ...(checkDigit === null ? {} : { schemeID: checkDigit }),
        schemeName: person.idType,
        value: person.idNumber,
      },
      FirstName: person.firstName,
      FamilyName: person.familyName,
      JobTitle: person.jobTitle,
      OrganizationDepartment: person.department,
    },
  };
}

/** The ApplicationResponse of one event, with its CUDE. Throws for a 030 or 032 without its person, which DIAN refuses. */
export function applicationResponse(event: EventRendition) {
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
    softwarePin: '',
  });
  const notes: string[] = [];
  if (event.eventCode === '031' && event.claim) notes.push(event.claim.description);
  if (event.eventCode === '034') {
    notes.push(
      `Manifiesto bajo la gravedad de juramento que transcurridos 3 días hábiles siguientes a la fecha de recepción de la mercancía o del servicio en la referida factura de este evento, el adquirente ${event.sender.name} identificado con NIT ${event.sender.nit} no manifestó expresamente la aceptación o rechazo de la referida factura, ni reclamó en contra de su contenido.`,
    );
  }
  const responseCode =
    event.eventCode === '031' && event.claim
      ? { value: '031', listID: event.claim.code, name: CLAIM_CONCEPTS[event.claim.code] ?? '' }
      : { value: event.eventCode };
  return {
    ApplicationResponse: {
      UBLVersionID: 'UBL 2.1',
      CustomizationID: '1',
      ProfileID: 'DIAN 2.1: ApplicationResponse de la Factura Electrónica de Venta',
      ProfileExecutionID: event.profileExecutionId,
      ID: event.eventNumber,
      UUID: { schemeID: event.profileExecutionId, schemeName: 'CUDE-SHA384', value: cude },
      IssueDate: issueDate,
      IssueTime: issueTime,
      ...(notes.length ? { Note: notes } : {}),
      SenderParty: partyTaxScheme(event.sender),
      ReceiverParty: partyTaxScheme(event.receiver),
      DocumentResponse: {
        Response: { ResponseCode: responseCode, Description: EVENT_DESCRIPTIONS[event.eventCode] },
        DocumentReference: {
          ID: event.invoice.number,
          UUID: { schemeName: 'CUFE-SHA384', value: event.invoice.cufe },
          DocumentTypeCode: '01',
        },
        ...(event.person && carriesPerson(event.eventCode) ? { IssuerParty: issuerParty(event.person) } : {}),
      },
    },
  };
}

export type ApplicationResponse = ReturnType<typeof applicationResponse>;
