import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { eventCude, softwareSecurityCode } from '../../../fiscal/event-cude.ts';
import { TEST_DIAN_SOFTWARE } from '../../harness/signing-certificates.ts';
import { PERSON, rendition, SENDER_NIT } from './events.ts';

const CUFE = 'd'.repeat(96);
const read = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: 'value',
  parseTagValue: false,
  isArray: (name) => name === 'Note' || name === 'UBLExtension',
});
const parsed = (...args: Parameters<typeof rendition>) =>
  (read.parse(rendition(...args).xml) as { ApplicationResponse: Record<string, any> }).ApplicationResponse;

describe('the ApplicationResponse of an event', () => {
  it('writes the header, the Bogotá time of signature and the claim concept as DIAN examples do', () => {
    const claim = parsed('031', CUFE, { signedAt: new Date('2026-11-20T15:30:00Z') });
    expect(claim).toMatchObject({
      UBLVersionID: 'UBL 2.1',
      CustomizationID: '1',
      ProfileExecutionID: '2',
      ID: '031-1',
      IssueDate: '2026-11-20',
      IssueTime: '10:30:00-05:00',
      Note: ['Valores errados'],
      SenderParty: { PartyTaxScheme: { CompanyID: { value: SENDER_NIT, schemeName: '31', schemeID: '2' } } },
    });
    expect(claim.DocumentResponse.Response).toEqual({
      ResponseCode: { value: '031', listID: '01', name: 'Documento con inconsistencias' },
      Description: 'Reclamo de la Factura Electrónica de Venta',
    });
    expect(claim.DocumentResponse.DocumentReference).toEqual({
      ID: 'FE-1',
      UUID: { value: CUFE, schemeName: 'CUFE-SHA384' },
      DocumentTypeCode: '01',
    });
  });

  it("carries the CUDE computed with the software's PIN, and the software's security code, never the PIN", () => {
    const signedAt = new Date('2026-11-20T15:30:00Z');
    const { xml, cude } = rendition('030', CUFE, { signedAt });
    const event = parsed('030', CUFE, { signedAt });
    expect(cude).toBe(
      eventCude({
        eventNumber: '030-1',
        issueDate: '2026-11-20',
        issueTime: '10:30:00-05:00',
        senderNit: SENDER_NIT,
        receiverNit: '800000002',
        responseCode: '030',
        invoiceNumber: 'FE-1',
        documentTypeCode: '01',
        softwarePin: TEST_DIAN_SOFTWARE.pin,
      }),
    );
    expect(event.UUID).toEqual({ value: cude, schemeID: '2', schemeName: 'CUDE-SHA384' });
    const extensions = event.UBLExtensions.UBLExtension[0].ExtensionContent.DianExtensions;
    expect(extensions.SoftwareProvider.SoftwareID.value).toBe(TEST_DIAN_SOFTWARE.id);
    expect(extensions.SoftwareSecurityCode.value).toBe(
      softwareSecurityCode(TEST_DIAN_SOFTWARE.id, TEST_DIAN_SOFTWARE.pin, '030-1'),
    );
    expect(extensions.AuthorizationProvider.AuthorizationProviderID.value).toBe('800197268');
    // The second extension waits for the signature; the PIN is nowhere in the document.
    expect(event.UBLExtensions.UBLExtension[1]).toEqual({ ExtensionContent: '' });
    expect(xml).not.toContain(`>${TEST_DIAN_SOFTWARE.pin}<`);
  });

  it('names the person in 030 and 032 as DIAN’s 030 example does, and nobody in the other events', () => {
    const person = {
      Person: {
        ID: { schemeID: '4', schemeName: '13', value: '2589846132' },
        FirstName: 'Solo',
        FamilyName: 'Pruebas',
        JobTitle: 'Revisor Fiscal',
        OrganizationDepartment: 'Jurídica',
      },
    };
    expect(parsed('030', CUFE).DocumentResponse.IssuerParty).toEqual(person);
    expect(parsed('032', CUFE).DocumentResponse.IssuerParty).toEqual(person);
    const passport = parsed('032', CUFE, { person: { ...PERSON, idType: '41', idNumber: 'AB123456' } });
    expect(passport.DocumentResponse.IssuerParty.Person.ID).toEqual({ schemeName: '41', value: 'AB123456' });
    for (const code of ['031', '033', '034'] as const)
      expect(parsed(code, CUFE, { person: PERSON }).DocumentResponse, code).not.toHaveProperty('IssuerParty');
  });

  it('sends a tacit acceptance to DIAN with the sworn note', () => {
    const tacit = parsed('034', CUFE);
    expect(tacit.ReceiverParty.PartyTaxScheme.CompanyID.value).toBe('800197268');
    expect(tacit.Note[0]).toContain('bajo la gravedad de juramento');
  });

  it('escapes what a name may hold', () => {
    const { xml } = rendition('033', CUFE, { sender: { name: 'Díaz & Hijos <S.A.S.>', nit: SENDER_NIT } });
    expect(xml).toContain('Díaz &amp; Hijos &lt;S.A.S.&gt;');
  });

  it('refuses to build a 030 or 032 without its person', () => {
    expect(() => rendition('030', CUFE, { person: null })).toThrow(
      'Event 030 needs the person who receives for the buyer',
    );
    expect(() => rendition('032', CUFE, { person: null })).toThrow(
      'Event 032 needs the person who receives for the buyer',
    );
  });
});
