import { describe, expect, it } from 'vitest';
import { colombianDateTime, mexicanDateTime, mexicanTimeZone } from '../../../fiscal/dates.ts';
import { MAX_FISCAL_XML_BYTES } from '../../../fiscal/parse.ts';
import { MAX_XML_ELEMENTS, MAX_XML_RUN, parseXml } from '../../../fiscal/xml.ts';
import { refusal } from './fixtures.ts';

describe('XML reading layer', () => {
  it('resolves namespaces whatever the prefixes, decodes entities and keeps CDATA literal', () => {
    const root = parseXml(
      '<?xml version="1.0"?><x:Root xmlns:x="urn:a" xmlns="urn:b"><Item n="A &amp; B">caf&#233; &lt;1&gt;</Item><x:Raw><![CDATA[<keep>&amp;</keep>]]></x:Raw></x:Root>',
      'a.xml',
    );
    expect(root).toMatchObject({ name: 'x:Root', localName: 'Root', namespace: 'urn:a', path: 'x:Root' });
    expect(root.children.map((child) => [child.localName, child.namespace, child.path])).toEqual([
      ['Item', 'urn:b', 'x:Root/Item'],
      ['Raw', 'urn:a', 'x:Root/x:Raw'],
    ]);
    expect(root.children[0]?.attributes['n']).toBe('A & B');
    expect(root.children[0]?.text).toBe('café <1>');
    expect(root.children[1]?.text).toBe('<keep>&amp;</keep>');
  });

  it('numbers repeated siblings in paths', () => {
    const root = parseXml('<R><L/><L><V/></L><M/></R>', 'a.xml');
    expect(root.children.map((child) => child.path)).toEqual(['R/L[1]', 'R/L[2]', 'R/M']);
    expect(root.children[1]?.children[0]?.path).toBe('R/L[2]/V');
  });

  it('refuses a file over the size cap before parsing it', () => {
    const huge = `<Invoice>${' '.repeat(MAX_FISCAL_XML_BYTES)}</Invoice>`;
    expect(refusal(huge, 'big.xml')).toMatchObject({ code: 'file_too_large', file: 'big.xml', element: null });
    expect(refusal(new TextEncoder().encode(huge), 'big.xml')).toMatchObject({
      code: 'file_too_large',
      file: 'big.xml',
      element: null,
    });
  });

  it('refuses what is not well-formed XML', () => {
    const notXml = refusal('this is not xml', 'a.xml');
    expect(notXml).toMatchObject({ code: 'malformed_xml', file: 'a.xml', element: null });
    const mismatched = refusal('<Invoice>\n<a></b></Invoice>', 'a.xml');
    expect(mismatched).toMatchObject({ code: 'malformed_xml', file: 'a.xml', element: null, line: 2 });
    expect(refusal('<A/><B/>', 'a.xml')).toMatchObject({ code: 'malformed_xml', file: 'a.xml', element: null });
    const deep = refusal(`${'<e>'.repeat(101)}${'</e>'.repeat(101)}`, 'a.xml');
    expect(deep).toMatchObject({ code: 'malformed_xml', element: null });
    expect(deep.message).toContain('more than 100 deep');
    expect(parseXml(`${'<e>'.repeat(100)}${'</e>'.repeat(100)}`, 'a.xml').name).toBe('e');
    expect(refusal(new Uint8Array([0x3c, 0x41, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x41, 0x3e]), 'a.xml')).toMatchObject({
      code: 'malformed_xml',
      file: 'a.xml',
      element: null,
    });
  });

  it('refuses undeclared prefixes and entities other than the XML built-ins', () => {
    expect(
      refusal(
        '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><cbc:ID>1</cbc:ID></Invoice>',
        'a.xml',
      ),
    ).toMatchObject({
      code: 'malformed_xml',
      file: 'a.xml',
      element: 'Invoice/cbc:ID',
    });
    expect(refusal('<Invoice><Note>&nbsp;</Note></Invoice>', 'a.xml')).toMatchObject({
      code: 'malformed_xml',
      file: 'a.xml',
      element: 'Invoice/Note',
    });
    expect(refusal('<Invoice><Note>A & B</Note></Invoice>', 'a.xml')).toMatchObject({
      code: 'malformed_xml',
      file: 'a.xml',
    });
  });

  it('refuses characters XML forbids, raw or as references, naming the element', () => {
    const cases: [string, string, string][] = [
      ['<R><Name>AB\u0000C</Name></R>', 'R/Name', 'U+0000'],
      ['<R><Name a="1" v="x\u0001"/></R>', 'R/Name/@v', 'U+0001'],
      ['<R><!-- \u0002 --></R>', 'R', 'U+0002'],
      ['<R><Name>A&#1;B</Name></R>', 'R/Name', 'U+0001'],
      ['<R><Name v="x&#x1F;"/></R>', 'R/Name/@v', 'U+001F'],
      ['<R><L/><L>\u0007</L></R>', 'R/L[2]', 'U+0007'],
      ['<R><Raw><![CDATA[\uFFFF]]></Raw></R>', 'R/Raw', 'U+FFFF'],
    ];
    for (const [xml, element, character] of cases) {
      const refused = refusal(xml, 'a.xml');
      expect(refused).toMatchObject({ code: 'malformed_xml', element });
      expect(refused.message).toContain(`the character ${character} is not allowed in XML`);
    }
    // Allowed: tab, line feed, carriage return (read as a line end, as XML says) and characters beyond the BMP.
    expect(parseXml('<R>tab\tline\ncr\r😀</R>', 'a.xml').text).toBe('tab\tline\ncr\n😀');
  });

  it('refuses any DOCTYPE, even without entities', () => {
    expect(refusal('<!DOCTYPE Invoice><Invoice/>', 'a.xml')).toMatchObject({
      code: 'dtd_not_allowed',
      file: 'a.xml',
      element: '!DOCTYPE',
    });
    expect(
      refusal('<!-- <!DOCTYPE in a comment is fine --><!DOCTYPE x SYSTEM "http://example.com/x.dtd"><x/>', 'a.xml'),
    ).toMatchObject({ code: 'dtd_not_allowed' });
  });

  it('reads UTF-8 with or without its mark, UTF-16 LE and BE with or without it, and a declared code page, alike', () => {
    const text = '<?xml version="1.0" encoding="ENCODING"?><R n="Compañía">café</R>';
    const utf16le = (xml: string) => new Uint8Array(Buffer.from(xml, 'utf16le'));
    const utf16be = (xml: string) => new Uint8Array(Buffer.from(xml, 'utf16le').swap16());
    const inputs = {
      'UTF-8': new TextEncoder().encode(text.replace('ENCODING', 'UTF-8')),
      'UTF-8 with its mark': new TextEncoder().encode(`\uFEFF${text.replace('ENCODING', 'UTF-8')}`),
      'UTF-16LE with its mark': utf16le(`\uFEFF${text.replace('ENCODING', 'UTF-16')}`),
      'UTF-16BE with its mark': utf16be(`\uFEFF${text.replace('ENCODING', 'UTF-16')}`),
      'UTF-16LE without': utf16le(text.replace('ENCODING', 'UTF-16')),
      'UTF-16BE without': utf16be(text.replace('ENCODING', 'UTF-16')),
      'ISO-8859-1': new Uint8Array(Buffer.from(text.replace('ENCODING', 'ISO-8859-1'), 'latin1')),
    };
    for (const [encoding, bytes] of Object.entries(inputs)) {
      const root = parseXml(bytes, 'a.xml');
      expect([encoding, root.attributes['n'], root.text]).toEqual([encoding, 'Compañía', 'café']);
    }
  });

  it('refuses an encoding it does not read, naming it; and UTF-16 declared in bytes that are not', () => {
    const declared = (encoding: string) =>
      new TextEncoder().encode(`<?xml version="1.0" encoding="${encoding}"?><R>x</R>`);
    for (const encoding of ['EBCDIC-CP-US', 'UTF-16', 'ISO-2022-KR']) {
      const refused = refusal(declared(encoding), 'a.xml');
      expect(refused).toMatchObject({ code: 'unsupported_encoding', element: null });
      expect(refused.message).toContain(`"${encoding}"`);
    }
  });

  it('refuses a size cap reached, and shapes whose parse would not fit in a worker, before parsing', () => {
    const exactly = `<R>${' '.repeat(MAX_FISCAL_XML_BYTES - 7)}</R>`;
    expect(new TextEncoder().encode(exactly).byteLength).toBe(MAX_FISCAL_XML_BYTES);
    expect(refusal(new TextEncoder().encode(exactly), 'big.xml')).toMatchObject({ code: 'file_too_large' });
    const longText = refusal(`<R>${'x'.repeat(MAX_XML_RUN + 1)}</R>`, 'a.xml');
    expect(longText).toMatchObject({ code: 'file_too_large', element: null });
    expect(longText.message).toContain(`${MAX_XML_RUN} characters`);
    expect(refusal(`<R>${'<e/>'.repeat(MAX_XML_ELEMENTS)}</R>`, 'a.xml')).toMatchObject({ code: 'file_too_large' });
    // Within both, and a CDATA (read as one piece) of any length: read.
    expect(parseXml(`<R>${'<e/>'.repeat(MAX_XML_ELEMENTS - 1)}</R>`, 'a.xml').children).toHaveLength(
      MAX_XML_ELEMENTS - 1,
    );
    expect(parseXml(`<R><![CDATA[${'x'.repeat(2 * MAX_XML_RUN)}]]></R>`, 'a.xml').text).toHaveLength(2 * MAX_XML_RUN);
  });

  it('makes what a refusal quotes storable: a file name or a tag name holding U+0000', () => {
    const refused = refusal('<Invoice><cbc:I\u0000D>1</cbc:I\u0000D></Invoice>', 'fact\u0000ura.xml');
    expect(refused).toMatchObject({ code: 'malformed_xml', file: 'fact\\x00ura.xml', element: 'Invoice' });
    expect(refused.message).not.toContain('\u0000');
    expect(refused.message).toContain('the character U+0000 is not allowed in XML');
  });

  it('refuses a root element it does not know', () => {
    expect(refusal('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>', 'po.xml')).toMatchObject({
      code: 'unsupported_document',
      file: 'po.xml',
      element: 'Order',
    });
  });
});

describe('fiscal dates', () => {
  it('adds the Colombian offset only when the time has none', () => {
    expect(colombianDateTime('2019-06-12', '12:53:36', 'd', 't', 'f.xml')).toBe('2019-06-12T12:53:36-05:00');
    expect(colombianDateTime('2019-06-12', '12:53:36-05:00', 'd', 't', 'f.xml')).toBe('2019-06-12T12:53:36-05:00');
    expect(colombianDateTime('2019-06-12', '17:53:36Z', 'd', 't', 'f.xml')).toBe('2019-06-12T17:53:36Z');
    expect(colombianDateTime('2019-06-12', null, 'd', 't', 'f.xml')).toBe('2019-06-12T00:00:00-05:00');
    expect(() => colombianDateTime('2019-06-12', '25:00:00', 'd', 't', 'f.xml')).toThrow(/HH:MM:SS/);
  });

  it('gives Mexican local times the offset of their zone on that day', () => {
    expect(mexicanTimeZone('56820')).toBe('America/Mexico_City');
    expect(mexicanTimeZone('77500')).toBe('America/Cancun');
    expect(mexicanTimeZone('22000')).toBe('America/Tijuana');
    expect(mexicanTimeZone('83000')).toBe('America/Hermosillo');
    expect(mexicanTimeZone(null)).toBe('America/Mexico_City');
    // Central Mexico dropped daylight saving time in October 2022.
    expect(mexicanDateTime('2022-07-01T10:00:00', 'America/Mexico_City', 'e', 'f.xml')).toBe(
      '2022-07-01T10:00:00-05:00',
    );
    expect(mexicanDateTime('2023-07-01T10:00:00', 'America/Mexico_City', 'e', 'f.xml')).toBe(
      '2023-07-01T10:00:00-06:00',
    );
    expect(mexicanDateTime('2024-07-01T10:00:00', 'America/Tijuana', 'e', 'f.xml')).toBe('2024-07-01T10:00:00-07:00');
    expect(() => mexicanDateTime('2024-07-01 10:00', 'America/Tijuana', 'e', 'f.xml')).toThrow(/YYYY-MM-DDTHH:MM:SS/);
  });
});
