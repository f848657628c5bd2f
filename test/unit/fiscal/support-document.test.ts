import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cudsComposition, cudsOf } from '../../../fiscal/cufe.ts';
import { FiscalDocumentError } from '../../../fiscal/errors.ts';
import { twoDecimalsTruncated } from '../../../fiscal/money.ts';
import type { FiscalParseContext, NormalizedDocument } from '../../../fiscal/normalized-document.ts';
import { parseFiscalDocument } from '../../../fiscal/parse.ts';
import { supportDocumentXml, type SupportDocumentOptions } from '../../harness/support-documents.ts';
import { fixtureText, parseDocument, replaceOnce } from './fixtures.ts';

const SOFTWARE = { id: '0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3', pin: '24680' };
const SELLER = { name: 'María Fernanda Rojas', typeCode: '13', number: '52123456', email: 'mafe.rojas@example.co' };
const COMPANY = { name: 'Andina Compras S.A.S.', typeCode: '31', number: '900123456', checkDigit: '7' };

const build = (overrides: Partial<SupportDocumentOptions> = {}) =>
  supportDocumentXml({
    documentNumber: 'DS1001',
    seller: SELLER,
    buyer: COMPANY,
    lines: [
      { description: 'Transporte de mercancía Bogotá-Tunja', cents: 350_000_00n },
      { description: 'Cargue y descargue', cents: 50_000_00n },
    ],
    software: SOFTWARE,
    ...overrides,
  });

function parse(xml: string, context: FiscalParseContext = {}): NormalizedDocument {
  const parsed = parseFiscalDocument(xml, 'ds.xml', context);
  if (parsed.kind !== 'document') throw new Error(`expected a document, got ${parsed.kind}`);
  return parsed.document;
}

function refused(xml: string, context: FiscalParseContext): FiscalDocumentError {
  try {
    parse(xml, context);
  } catch (error) {
    if (error instanceof FiscalDocumentError) return error;
    throw error;
  }
  throw new Error('expected the documento soporte to be refused');
}

describe('DIAN documento soporte', () => {
  it('is an expense whose supplier is the seller who does not invoice, with its support facts', () => {
    const file = build();
    const document = parse(file.xml);
    expect(document).toMatchObject({
      type: 'expense',
      documentNumber: 'DS1001',
      fiscalReference: file.cuds,
      totals: { subtotalCents: 400_000_00n, taxTotalCents: 0n, totalCents: 400_000_00n },
      supplier: { name: SELLER.name, identifierType: 'CC', identifierNumber: '52123456', email: SELLER.email },
      customer: { identifierType: 'NIT', identifierNumber: '900123456', checkDigit: '7' },
    });
    expect(document.supportDocument).toEqual({
      documentNumber: 'DS1001',
      issueDate: '2026-11-03',
      cuds: file.cuds,
      cudsCheck: 'format',
      seller: document.supplier,
      buyer: document.customer,
      partiesReversed: false,
      resolution: {
        number: '18760000002',
        validFrom: '2026-01-01',
        validTo: '2027-12-31',
        prefix: 'DS',
        rangeFrom: '1',
        rangeTo: '5000',
      },
      environment: 'test',
    });
    expect(document.metadata).toMatchObject({ documentTypeCode: '05', fiscalReferenceScheme: 'CUDS-SHA384' });
  });

  it('recomputes the CUDS of a document issued with the software whose PIN it holds', () => {
    const file = build({ ivaPercent: 19 });
    const document = parse(file.xml, { dianSoftware: SOFTWARE, ownTaxId: '900123456-7' });
    expect(document.totals).toMatchObject({ taxTotalCents: 76_000_00n, totalCents: 476_000_00n });
    expect(document.supportDocument?.cudsCheck).toBe('recomputed');
  });

  it('refuses a CUDS that does not match its composition, naming the element', () => {
    const forged = createHash('sha384').update('another document').digest('hex');
    const error = refused(build({ cuds: forged }).xml, { dianSoftware: SOFTWARE });
    expect(error.code).toBe('invalid_fiscal_reference');
    expect(error.element).toBe('Invoice/cbc:UUID');
    expect(error.message).toContain('the CUDS does not match the document');
    // The total changed after the CUDS was computed: the same refusal.
    const original = build();
    const tampered = original.xml.replaceAll('400000.00', '410000.00').replace('350000.00', '360000.00');
    expect(refused(tampered, { dianSoftware: SOFTWARE }).code).toBe('invalid_fiscal_reference');
  });

  it('checks only the shape of a CUDS from other software, as for a CUFE', () => {
    const forged = createHash('sha384').update('another document').digest('hex');
    const document = parse(build({ cuds: forged }).xml, { dianSoftware: { id: 'other-software', pin: '1' } });
    expect(document.supportDocument?.cudsCheck).toBe('format');
    const short = replaceOnce(build().xml, /schemeName="CUDS-SHA384">[0-9a-f]{96}/, 'schemeName="CUDS-SHA384">abc123');
    expect(() => parse(short)).toThrow(/CUDS must be 96 hexadecimal characters/);
  });

  it('recognises a file that names the company as supplier: the seller is still the one paid', () => {
    const file = build({ reverseParties: true });
    const document = parse(file.xml, { ownTaxId: '900.123.456-7', dianSoftware: SOFTWARE });
    expect(document.supplier.identifierNumber).toBe('52123456');
    expect(document.customer.identifierNumber).toBe('900123456');
    expect(document.supportDocument).toMatchObject({ partiesReversed: true, cudsCheck: 'recomputed' });
    // Without the company's NIT the file is read as DIAN's annex places the parties.
    expect(parse(file.xml).supplier.identifierNumber).toBe('900123456');
  });

  it('leaves invoices as they were', () => {
    const invoice = parseDocument(fixtureText('dian/stenfrank-invoice_unsigned_dian_v2.xml'), 'factura.xml');
    expect(invoice.type).toBe('invoice');
    expect(invoice.supportDocument).toBeNull();
  });
});

describe('the CUDS composition', () => {
  const parts = {
    documentNumber: 'DS1001',
    issueDate: '2026-11-03',
    issueTime: '10:15:00-05:00',
    subtotal: '400000.00',
    iva: '76000.00',
    total: '476000.00',
    sellerId: '52123456',
    buyerNit: '900123456',
    softwarePin: '24680',
    environment: '2',
  };

  it('joins NumDS, FecDS, HorDS, ValDS, 01, ValImp1, ValTot, NumSNO, NITABS, PIN and TipoAmbiente', () => {
    expect(cudsComposition(parts)).toBe(
      'DS10012026-11-0310:15:00-05:00400000.0001' + '76000.00476000.00' + '52123456900123456' + '246802',
    );
    expect(cudsOf(parts)).toBe(createHash('sha384').update(cudsComposition(parts)).digest('hex'));
    expect(cudsOf(parts)).toMatch(/^[0-9a-f]{96}$/);
  });

  it('writes amounts with two decimals, cut rather than rounded', () => {
    expect(twoDecimalsTruncated('19.999')).toBe('19.99');
    expect(twoDecimalsTruncated('1500000')).toBe('1500000.00');
    expect(twoDecimalsTruncated('0')).toBe('0.00');
    expect(twoDecimalsTruncated('007.5')).toBe('7.50');
    expect(twoDecimalsTruncated('-0.004')).toBe('0.00');
  });
});
