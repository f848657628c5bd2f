import { describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureText, parseDocument, refusal, replaceOnce } from './fixtures.ts';

const ATTACHED = 'dian/constructed-attached-document-invoice.xml';
const INVOICE = 'dian/stenfrank-invoice_unsigned_dian_v2.xml';
const DESCRIPTION = 'AttachedDocument/cac:Attachment/cac:ExternalReference/cbc:Description';

describe('DIAN AttachedDocument', () => {
  const document = parseDocument(fixtureBytes(ATTACHED), 'adjunto.xml');

  it('reads the wrapped invoice exactly as the invoice file itself', () => {
    const { metadata, ...wrapped } = document;
    const { metadata: invoiceMetadata, ...direct } = parseDocument(fixtureBytes(INVOICE), 'factura.xml');
    expect(wrapped).toEqual(direct);
    expect(metadata).toMatchObject(invoiceMetadata);
    expect(document).toMatchObject({
      type: 'invoice',
      documentNumber: 'SETP990000008',
      fiscalReference:
        'e633d09279badff1414e7e00f0c9322c01879754c0349e2ea8acd357a474962e17729d393a8bb4094ff3f29dbf0e3af1',
      totals: {
        subtotalCents: 172_000_000n,
        taxTotalCents: 34_206_000n,
        withholdingTotalCents: 0n,
        totalCents: 202_306_000n,
      },
      supplier: { name: 'FACTURADOR DE EJEMPLO', identifierNumber: '901210113' },
    });
    expect(document.lineItems).toHaveLength(6);
  });

  it('keeps the envelope and DIAN validation facts in metadata', () => {
    expect(document.metadata['attachedDocument']).toEqual({
      id: 'AD-SETP990000008',
      profileId: 'Factura Electrónica de Venta',
      documentType: 'Contenedor de Factura Electrónica',
      parentDocumentId: 'SETP990000008',
      issueDate: '2019-06-12',
      sender: 'FACTURADOR DE EJEMPLO',
      receiver: 'ADQUIRIENTE DE EJEMPLO',
      declaredFiscalReference:
        'e633d09279badff1414e7e00f0c9322c01879754c0349e2ea8acd357a474962e17729d393a8bb4094ff3f29dbf0e3af1',
      declaredFiscalReferenceMatches: true,
      validation: {
        validatorId: 'Unidad Especial Dirección de Impuestos y Aduanas Nacionales',
        resultCode: '02',
        date: '2019-06-12',
        time: '12:55:02-05:00',
      },
      applicationResponse: {
        readable: true,
        id: '31245872',
        fiscalReference: null,
        issueDate: '2019-06-12',
        responseCode: '02',
        description: 'Documento validado por la DIAN',
      },
    });
  });

  it('names the path through the envelope when the wrapped invoice does not add up', () => {
    const bad = replaceOnce(
      fixtureText(ATTACHED),
      '<cbc:PayableAmount currencyID="COP">2023060.00',
      '<cbc:PayableAmount currencyID="COP">2023160.00',
    );
    expect(refusal(bad, 'adjunto.xml')).toMatchObject({
      code: 'totals_mismatch',
      file: 'adjunto.xml',
      element: `${DESCRIPTION}/Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount`,
    });
  });

  it('refuses an envelope in the wrong namespace', () => {
    const wrong = replaceOnce(
      fixtureText(ATTACHED),
      'xmlns="urn:oasis:names:specification:ubl:schema:xsd:AttachedDocument-2"',
      'xmlns="urn:example:AttachedDocument"',
    );
    expect(refusal(wrong, 'adjunto.xml')).toMatchObject({
      code: 'unsupported_document',
      file: 'adjunto.xml',
      element: 'AttachedDocument',
    });
  });

  it('refuses an envelope without the wrapped document', () => {
    const empty = fixtureText(ATTACHED).replace(
      /<cbc:Description><!\[CDATA\[<\?xml[\s\S]*?<\/Invoice>\]\]><\/cbc:Description>/,
      '<cbc:Description/>',
    );
    expect(refusal(empty, 'adjunto.xml')).toMatchObject({
      code: 'missing_element',
      file: 'adjunto.xml',
      element: DESCRIPTION,
    });
  });

  it('refuses an envelope that wraps something other than a UBL invoice or note', () => {
    const cfdi = fixtureText('cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml');
    const wrapped = fixtureText(ATTACHED).replace(/<!\[CDATA\[<\?xml[\s\S]*?<\/Invoice>\]\]>/, `<![CDATA[${cfdi}]]>`);
    expect(refusal(wrapped, 'adjunto.xml')).toMatchObject({
      code: 'unsupported_document',
      file: 'adjunto.xml',
      element: `${DESCRIPTION}/cfdi:Comprobante`,
    });
  });

  it('refuses a DOCTYPE hidden in the wrapped document', () => {
    const xxe = replaceOnce(
      fixtureText(ATTACHED),
      '<![CDATA[<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<Invoice',
      '<![CDATA[<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Invoice',
    );
    expect(refusal(xxe, 'adjunto.xml')).toMatchObject({
      code: 'dtd_not_allowed',
      file: 'adjunto.xml',
      element: '!DOCTYPE',
    });
  });
});
