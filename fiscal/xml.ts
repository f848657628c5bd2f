// A small namespace-aware XML tree on top of fast-xml-parser, safe for untrusted files:
// no DTDs, no entity expansion beyond the five XML ones and character references, caps on its size and its shape.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { FiscalDocumentError } from './errors.ts';
import { xmlEncoding } from './xml-encoding.ts';

/** The XML cap: a fiscal XML of this many bytes or more is refused. Real invoices are tens of kilobytes. */
export const MAX_FISCAL_XML_BYTES = 10 * 1024 * 1024;

export interface XmlElement {
  /** Qualified name as written in the file (`cbc:UUID`). */
  readonly name: string;
  readonly localName: string;
  /** Resolved namespace URI, or null when the element is in no namespace. */
  readonly namespace: string | null;
  /** Attributes by the name written in the file, entity-decoded. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The element's own text and CDATA, decoded, untrimmed. */
  readonly text: string;
  /** Readable location, e.g. `Invoice/cac:InvoiceLine[2]/cbc:LineExtensionAmount`. */
  readonly path: string;
}

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Entities are decoded here, not by the parser, so nothing but the XML built-ins can ever expand.
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
  commentPropName: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 100,
});

/** Parses a fiscal XML file into a namespace-resolved element tree; `basePath` prefixes element paths of embedded documents. */
export function parseXml(input: string | Uint8Array, file: string, basePath = ''): XmlElement {
  const text = decodeInput(input, file);
  rejectDoctype(text, file);
  const validation = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (validation !== true) {
    throw new FiscalDocumentError(
      'malformed_xml',
      file,
      null,
      `the file is not well-formed XML: ${validation.err.msg}`,
      {
        line: validation.err.line,
        column: validation.err.col,
      },
    );
  }
  let nodes: unknown;
  try {
    nodes = parser.parse(text);
  } catch (error) {
    throw new FiscalDocumentError(
      'malformed_xml',
      file,
      null,
      `the file could not be read as XML: ${(error as Error).message}`,
    );
  }
  const top = Array.isArray(nodes) ? (nodes as unknown[]) : [];
  const roots: Record<string, unknown>[] = [];
  for (const node of top) {
    const record = node as Record<string, unknown>;
    if ('#text' in record) {
      if (String(record['#text']).trim() !== '') {
        throw new FiscalDocumentError('malformed_xml', file, null, 'text found outside the root element');
      }
    } else if (!('#cdata' in record)) {
      roots.push(record);
    }
  }
  const [root] = roots;
  if (root === undefined || roots.length > 1) {
    throw new FiscalDocumentError(
      'malformed_xml',
      file,
      null,
      roots.length === 0 ? 'the file has no root element' : 'the file has more than one root element',
    );
  }
  // The parser's tree is let go as the element tree is built (see buildElement): not both whole at once.
  nodes = undefined;
  top.length = 0;
  roots.length = 0;
  const scope = new Map<string, string>([['xml', XML_NAMESPACE]]);
  return buildElement(root, scope, basePath, file);
}

function decodeInput(input: string | Uint8Array, file: string): string {
  if (typeof input === 'string') {
    // Cheap bound first: a string never takes more than 3 UTF-8 bytes per UTF-16 unit.
    if (
      input.length * 3 >= MAX_FISCAL_XML_BYTES &&
      new TextEncoder().encode(input).byteLength >= MAX_FISCAL_XML_BYTES
    ) {
      throw tooLarge(file);
    }
    refuseHeavyShape(input, file);
    return input.startsWith('\uFEFF') ? input.slice(1) : input;
  }
  if (input.byteLength >= MAX_FISCAL_XML_BYTES) throw tooLarge(file);
  const found = xmlEncoding(input);
  if ('unsupported' in found) {
    throw new FiscalDocumentError(
      'unsupported_encoding',
      file,
      null,
      `the XML declaration names the character encoding "${found.unsupported}", which is not read (UTF-8, UTF-16 with its byte-order mark, ISO-8859 and Windows code pages are)`,
    );
  }
  // Where `<` is one byte, the shape is measured on the bytes: a file refused for it is never decoded.
  const bytewise = !found.encoding.startsWith('utf-16');
  if (bytewise) refuseHeavyShape(Buffer.from(input.buffer, input.byteOffset, input.byteLength), file);
  let text: string;
  try {
    text = new TextDecoder(found.encoding, { fatal: true, ignoreBOM: false }).decode(input);
  } catch {
    throw new FiscalDocumentError('malformed_xml', file, null, `the file is not valid ${found.encoding} text`);
  }
  if (!bytewise) refuseHeavyShape(text, file);
  return text;
}

/** The refusal of a file at or past the XML cap, for a reader that can tell from its size alone. */
export function tooLarge(file: string): FiscalDocumentError {
  return new FiscalDocumentError(
    'file_too_large',
    file,
    null,
    `the file reaches the ${MAX_FISCAL_XML_BYTES / (1024 * 1024)} MB XML cap (${MAX_FISCAL_XML_BYTES} bytes or more)`,
  );
}

/** Most elements a fiscal XML may hold: a CFDI of 12,000 concepts has about 60,000. */
export const MAX_XML_ELEMENTS = 60_000;
/**
 * Most characters (bytes, in an encoding where `<` is one byte) from one tag to the next, a tag and the text after it:
 * an embedded PDF of 750 KB in base64.
 */
export const MAX_XML_RUN = 1024 * 1024;

/**
 * Refuses, before the parser sees it, a file whose shape would take the parser's memory past what a worker has:
 * fast-xml-parser adds text one character at a time (about 32 bytes of heap each until the text ends) and keeps each
 * element as objects, so 10 MB of one text, or of empty elements, takes it past 300 MB. Comments and CDATA, which it
 * reads as one piece, are not measured.
 */
function refuseHeavyShape(text: string | Buffer, file: string): void {
  const startsWith =
    typeof text === 'string'
      ? (token: string, at: number) => text.startsWith(token, at)
      : (token: string, at: number) => text.toString('latin1', at, at + token.length) === token;
  let elements = 0;
  let at = 0;
  for (;;) {
    const open = text.indexOf('<', at);
    if ((open === -1 ? text.length : open) - at > MAX_XML_RUN)
      throw new FiscalDocumentError(
        'file_too_large',
        file,
        null,
        `the file holds more than ${MAX_XML_RUN} ${typeof text === 'string' ? 'characters' : 'bytes'} from one tag to the next, the most it may`,
      );
    if (open === -1) return;
    const close = startsWith('<!--', open) ? '-->' : startsWith('<![CDATA[', open) ? ']]>' : null;
    if (close === null) {
      const next = typeof text === 'string' ? text.charCodeAt(open + 1) : text[open + 1];
      // Not an end tag, a declaration or a processing instruction: an element.
      if (next !== 0x2f && next !== 0x21 && next !== 0x3f && ++elements > MAX_XML_ELEMENTS)
        throw new FiscalDocumentError(
          'file_too_large',
          file,
          null,
          `the file holds more than ${MAX_XML_ELEMENTS} elements, the most it may`,
        );
      at = open + 1;
      continue;
    }
    const end = text.indexOf(close, open);
    // Not closed: the parser says so.
    if (end === -1) return;
    at = end + close.length;
  }
}

function rejectDoctype(text: string, file: string): void {
  // Walk the markup that can hide "<!DOCTYPE" (comments, CDATA) so an attached document's text does not trip it.
  const pattern = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<!DOCTYPE|<!ENTITY/gi;
  for (const match of text.matchAll(pattern)) {
    const token = match[0].toUpperCase();
    if (token === '<!DOCTYPE' || token === '<!ENTITY') {
      throw new FiscalDocumentError(
        'dtd_not_allowed',
        file,
        '!DOCTYPE',
        'document type declarations and entities are not accepted in fiscal XML (they can make a parser read other files)',
      );
    }
  }
}

const EMPTY: Record<string, unknown> = {};

function buildElement(
  node: Record<string, unknown>,
  parentScope: ReadonlyMap<string, string>,
  parentPath: string,
  file: string,
  pathName?: string,
): XmlElement {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (name === undefined)
    throw new FiscalDocumentError('malformed_xml', file, parentPath || null, 'an element has no name');
  const path = parentPath === '' ? (pathName ?? name) : `${parentPath}/${pathName ?? name}`;
  const rawAttributes = (node[':@'] ?? {}) as Record<string, unknown>;
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  let scope = parentScope;
  for (const [key, raw] of Object.entries(rawAttributes)) {
    const value = allowedCharacters(decodeEntities(String(raw), file, `${path}/@${key}`), file, `${path}/@${key}`);
    attributes[key] = value;
    if (key === 'xmlns' || key.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope);
      (scope as Map<string, string>).set(key === 'xmlns' ? '' : key.slice(6), value);
    }
  }
  const colon = name.indexOf(':');
  const prefix = colon === -1 ? '' : name.slice(0, colon);
  const localName = colon === -1 ? name : name.slice(colon + 1);
  const namespace = scope.get(prefix) ?? null;
  if (prefix !== '' && namespace === null) {
    throw new FiscalDocumentError('malformed_xml', file, path, `the namespace prefix "${prefix}" is not declared`);
  }

  const content = node[name];
  // Let go of the parser's node as it is read: what is built replaces it.
  node[name] = undefined;
  const items = Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
  const elementNodes: Record<string, unknown>[] = [];
  let text = '';
  for (const item of items) {
    if ('#text' in item) {
      text += allowedCharacters(decodeEntities(String(item['#text']), file, path), file, path);
    } else if ('#cdata' in item) {
      // CDATA is literal: no entity decoding.
      for (const part of (item['#cdata'] ?? []) as Record<string, unknown>[])
        text += allowedCharacters(String((part['#text'] as string | number | undefined) ?? ''), file, path);
    } else {
      elementNodes.push(item);
    }
  }
  const counts = new Map<string, number>();
  for (const item of elementNodes) {
    const childName = Object.keys(item).find((key) => key !== ':@') ?? '';
    counts.set(childName, (counts.get(childName) ?? 0) + 1);
  }
  const seen = new Map<string, number>();
  items.length = 0;
  const children: XmlElement[] = [];
  for (let at = 0; at < elementNodes.length; at++) {
    const item = elementNodes[at]!;
    elementNodes[at] = EMPTY;
    const childName = Object.keys(item).find((key) => key !== ':@') ?? '';
    const index = (seen.get(childName) ?? 0) + 1;
    seen.set(childName, index);
    const label = (counts.get(childName) ?? 0) > 1 ? `${childName}[${index}]` : childName;
    children.push(buildElement(item, scope, path, file, label));
  }
  return { name, localName, namespace, attributes, children, text, path };
}

// XML 1.0's Char production: tab, line feed, carriage return and Unicode outside the C0 controls, the surrogates and
// U+FFFE/U+FFFF. Anything else (U+0000 among them, which PostgreSQL cannot store) is not XML, written raw or as `&#1;`.
const FORBIDDEN_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function allowedCharacters(value: string, file: string, path: string): string {
  const forbidden = FORBIDDEN_CHARACTER.exec(value)?.[0];
  if (forbidden === undefined) return value;
  const codePoint = `U+${forbidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  throw new FiscalDocumentError('malformed_xml', file, path, `the character ${codePoint} is not allowed in XML`);
}

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(raw: string, file: string, path: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(
    /&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z_][\w.-]*))?;?/g,
    (match, hex?: string, dec?: string, named?: string) => {
      if (!match.endsWith(';') || match === '&;') {
        throw new FiscalDocumentError('malformed_xml', file, path, 'a bare "&" must be written as &amp;');
      }
      if (named !== undefined) {
        const value = NAMED_ENTITIES[named];
        if (value === undefined)
          throw new FiscalDocumentError(
            'malformed_xml',
            file,
            path,
            `unknown entity &${named}; (only the XML built-in entities are accepted)`,
          );
        return value;
      }
      const codePoint = hex !== undefined ? Number.parseInt(hex, 16) : Number(dec);
      if (codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
        throw new FiscalDocumentError('malformed_xml', file, path, `invalid character reference ${match}`);
      }
      return String.fromCodePoint(codePoint);
    },
  );
}

/** The first direct child with this local name, whatever its prefix. */
export function child(element: XmlElement | undefined, localName: string): XmlElement | undefined {
  return element?.children.find((candidate) => candidate.localName === localName);
}

/** Every direct child with this local name, in document order. */
export function childrenNamed(element: XmlElement | undefined, localName: string): XmlElement[] {
  return element === undefined ? [] : element.children.filter((candidate) => candidate.localName === localName);
}

/** Every element reached by following these local names, one level per name. */
export function findAll(element: XmlElement | undefined, ...localNames: string[]): XmlElement[] {
  let current = element === undefined ? [] : [element];
  for (const localName of localNames) current = current.flatMap((item) => childrenNamed(item, localName));
  return current;
}

/** The first element reached by following these local names. */
export function find(element: XmlElement | undefined, ...localNames: string[]): XmlElement | undefined {
  return findAll(element, ...localNames)[0];
}

/** Trimmed text of an element, or null when absent or blank. */
export function textOf(element: XmlElement | undefined): string | null {
  const value = element?.text.trim() ?? '';
  return value === '' ? null : value;
}

/** Trimmed text at a path of local names, or null. */
export function textAt(element: XmlElement | undefined, ...localNames: string[]): string | null {
  for (const candidate of findAll(element, ...localNames)) {
    const value = textOf(candidate);
    if (value !== null) return value;
  }
  return null;
}

/** Trimmed value of an attribute, or null when absent or blank. */
export function attr(element: XmlElement | undefined, name: string): string | null {
  const value = element?.attributes[name]?.trim() ?? '';
  return value === '' ? null : value;
}

/** The readable path of an attribute. */
export function attrPath(element: XmlElement, name: string): string {
  return `${element.path}/@${name}`;
}

/** The readable path of a child that may not exist, named as a reader would expect it (`cbc:UUID`). */
export function childPath(element: XmlElement, qualifiedName: string): string {
  return `${element.path}/${qualifiedName}`;
}

/** The first direct child with this local name, or a `missing_element` error naming `qualifiedName`. */
export function requireChild(element: XmlElement, localName: string, qualifiedName: string, file: string): XmlElement {
  const found = child(element, localName);
  if (found === undefined) {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      childPath(element, qualifiedName),
      `required element ${qualifiedName} is missing`,
    );
  }
  return found;
}

/** The trimmed, non-blank text of a required direct child. */
export function requireText(
  element: XmlElement,
  localName: string,
  qualifiedName: string,
  file: string,
): { value: string; element: XmlElement } {
  const found = requireChild(element, localName, qualifiedName, file);
  const value = textOf(found);
  if (value === null)
    throw new FiscalDocumentError('missing_element', file, found.path, `required element ${qualifiedName} is empty`);
  return { value, element: found };
}

/** The trimmed, non-blank value of a required attribute. */
export function requireAttr(element: XmlElement, name: string, file: string): string {
  const value = attr(element, name);
  if (value === null)
    throw new FiscalDocumentError(
      'missing_element',
      file,
      attrPath(element, name),
      `required attribute ${name} is missing or empty`,
    );
  return value;
}
