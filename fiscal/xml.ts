// A small namespace-aware XML tree built from a streaming parser (saxes), safe for untrusted files: no DTDs, no entities
// beyond the five XML ones and character references, caps on its size and its shape. The parser keeps no tree of its
// own: each element is built once, as the parser reaches it.

import { SaxesParser, type SaxesTagPlain } from 'saxes';
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
const MAX_DEPTH = 100;
const NO_CHILDREN: readonly Element[] = Object.freeze([]);
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);
const ROOT_SCOPE: ReadonlyMap<string, string> = new Map([['xml', XML_NAMESPACE]]);

function hasAny(attributes: Readonly<Record<string, string>>): boolean {
  for (const _ in attributes) return true;
  return false;
}

/** The prefixes in scope on an element: its parent's, with its own `xmlns` declarations over them. */
function declaredScope(
  attributes: Readonly<Record<string, string>>,
  parentScope: ReadonlyMap<string, string>,
): ReadonlyMap<string, string> {
  let scope = parentScope;
  for (const [key, value] of Object.entries(attributes)) {
    if (key !== 'xmlns' && !key.startsWith('xmlns:')) continue;
    if (scope === parentScope) scope = new Map(parentScope);
    (scope as Map<string, string>).set(key === 'xmlns' ? '' : key.slice(6), value);
  }
  return scope;
}

/**
 * An element as built. Its path is worked out when asked for: whether a name is numbered (`L[1]`) depends on the
 * siblings that follow it, and a path is asked for only where something is reported.
 */
class Element implements XmlElement {
  children: readonly Element[] = NO_CHILDREN;
  text = '';
  /** True once a sibling shares the name: the path numbers it. */
  numbered = false;

  readonly name: string;
  readonly localName: string;
  readonly namespace: string | null;
  readonly attributes: Readonly<Record<string, string>>;
  readonly scope: ReadonlyMap<string, string>;
  /** Its place among its parent's children of the same name, from 1. */
  readonly index: number;
  /** The parent, or for the root the path its document is embedded at. */
  private readonly parent: Element | string;

  constructor(
    name: string,
    namespace: string | null,
    attributes: Readonly<Record<string, string>>,
    scope: ReadonlyMap<string, string>,
    parent: Element | string,
    index: number,
  ) {
    this.name = name;
    this.localName = name.slice(name.indexOf(':') + 1);
    this.namespace = namespace;
    this.attributes = attributes;
    this.scope = scope;
    this.parent = parent;
    this.index = index;
  }

  get path(): string {
    const label = this.numbered ? `${this.name}[${this.index}]` : this.name;
    const above = typeof this.parent === 'string' ? this.parent : this.parent.path;
    return above === '' ? label : `${above}/${label}`;
  }

  adopt(child: Element): void {
    if (this.children === NO_CHILDREN) this.children = [];
    (this.children as Element[]).push(child);
  }
}

/** Parses a fiscal XML file into a namespace-resolved element tree; `basePath` prefixes element paths of embedded documents. */
export function parseXml(input: string | Uint8Array, file: string, basePath = ''): XmlElement {
  const text = decodeInput(input, file);
  const builder = new TreeBuilder(file, basePath);
  const parser = new SaxesParser({ xmlns: false, position: true });
  parser.on('doctype', () => {
    throw new FiscalDocumentError(
      'dtd_not_allowed',
      file,
      '!DOCTYPE',
      'document type declarations and entities are not accepted in fiscal XML (they can make a parser read other files)',
    );
  });
  parser.on('opentagstart', (tag) => builder.starting(tag.name));
  parser.on('opentag', (tag) => builder.open(tag));
  parser.on('text', (value) => builder.addText(value));
  parser.on('cdata', (value) => builder.addText(value));
  parser.on('closetag', () => builder.close());
  try {
    for (const part of text.parts()) parser.write(part);
    parser.close();
  } catch (error) {
    if (error instanceof FiscalDocumentError) throw error;
    throw builder.refusal(parser, text.whole(), (error as Error).message);
  }
  return builder.root(parser);
}

/** Builds the element tree from the parser's events, and says where the parser was when it refused something. */
class TreeBuilder {
  private readonly stack: Element[] = [];
  /** Per open element, how many children of each name it has so far (only open elements keep one). */
  private readonly counts: (Map<string, Element> | null)[] = [];
  /** The name of the tag being read, between its name and the end of its attributes. */
  private tagBeingRead: string | null = null;
  private top: Element | undefined;

  private readonly file: string;
  private readonly basePath: string;

  constructor(file: string, basePath: string) {
    this.file = file;
    this.basePath = basePath;
  }

  starting(name: string): void {
    this.tagBeingRead = name;
  }

  open(tag: SaxesTagPlain): void {
    this.tagBeingRead = null;
    const parent = this.stack.at(-1);
    if (parent === undefined && this.top !== undefined)
      throw new FiscalDocumentError('malformed_xml', this.file, null, 'the file has more than one root element');
    if (this.stack.length >= MAX_DEPTH)
      throw new FiscalDocumentError(
        'malformed_xml',
        this.file,
        null,
        `the file nests elements more than ${MAX_DEPTH} deep, the most it may`,
      );
    const scope = declaredScope(tag.attributes, parent?.scope ?? ROOT_SCOPE);
    const colon = tag.name.indexOf(':');
    const prefix = colon === -1 ? '' : tag.name.slice(0, colon);
    const namespace = scope.get(prefix) ?? null;
    // Made when an element gets its first child: the many leaves never need one.
    const siblings = parent === undefined ? undefined : (this.counts[this.counts.length - 1] ??= new Map());
    const previous = siblings?.get(tag.name);
    const element = new Element(
      tag.name,
      namespace,
      hasAny(tag.attributes) ? tag.attributes : NO_ATTRIBUTES,
      scope,
      parent ?? this.basePath,
      (previous?.index ?? 0) + 1,
    );
    if (previous !== undefined) previous.numbered = element.numbered = true;
    if (prefix !== '' && namespace === null)
      throw new FiscalDocumentError(
        'malformed_xml',
        this.file,
        element.path,
        `the namespace prefix "${prefix}" is not declared`,
      );
    siblings?.set(tag.name, element);
    parent?.adopt(element);
    this.top ??= element;
    this.stack.push(element);
    this.counts.push(null);
  }

  addText(value: string): void {
    const element = this.stack.at(-1);
    // Text outside the root is whitespace: the parser refuses any other.
    if (element !== undefined) element.text += value;
  }

  close(): void {
    this.stack.pop();
    this.counts.pop();
  }

  root(parser: SaxesParser): XmlElement {
    if (this.top === undefined) throw this.refusal(parser, '', 'the file has no root element');
    return this.top;
  }

  /** The refusal of what the parser refused, naming the character XML forbids and where it stands when that is why. */
  refusal(parser: SaxesParser, text: string, message: string): FiscalDocumentError {
    const location = { line: parser.line, column: parser.column };
    const reason = message.replace(/^\d+:\d+: /, '');
    if (/^(disallowed character|malformed character entity)/.test(reason)) {
      const character = forbiddenCharacterBefore(text, parser.position);
      if (character !== null)
        return new FiscalDocumentError(
          'malformed_xml',
          this.file,
          this.where(text, parser.position),
          `the character ${character} is not allowed in XML`,
          location,
        );
    }
    if (reason.startsWith('undefined entity')) {
      const name = /&([^&;\s]{1,64});$/.exec(text.slice(Math.max(0, parser.position - 66), parser.position))?.[1];
      return new FiscalDocumentError(
        'malformed_xml',
        this.file,
        this.where(text, parser.position),
        `unknown entity &${name ?? ''}; (only the XML built-in entities are accepted)`,
        location,
      );
    }
    return new FiscalDocumentError(
      'malformed_xml',
      this.file,
      null,
      `the file is not well-formed XML: ${reason}`,
      location,
    );
  }

  /** The path of what the parser was reading at `position`: an element's text, or one of its attributes. */
  private where(text: string, position: number): string | null {
    const parent = this.stack.at(-1);
    const parentPath = parent?.path ?? this.basePath;
    if (this.tagBeingRead === null) return parentPath === '' ? null : parentPath;
    const tag = text.slice(text.lastIndexOf('<', position) + 1, position);
    const attribute = /([^\s=<>"']+)\s*=\s*(?:"[^"]*|'[^']*)$/.exec(tag)?.[1];
    const element = parentPath === '' ? this.tagBeingRead : `${parentPath}/${this.tagBeingRead}`;
    return attribute === undefined ? element : `${element}/@${attribute}`;
  }
}

// XML 1.0's Char production: tab, line feed, carriage return and Unicode outside the C0 controls, the surrogates and
// U+FFFE/U+FFFF. Anything else (U+0000 among them, which PostgreSQL cannot store) is not XML, written raw or as `&#1;`.
const FORBIDDEN_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** The forbidden character the parser stopped just after, written raw or as a reference, as `U+XXXX`; or null. */
function forbiddenCharacterBefore(text: string, position: number): string | null {
  const before = text.slice(Math.max(0, position - 12), position);
  const reference = /&#(?:x([0-9a-fA-F]+)|([0-9]+));$/.exec(before);
  const codePoint =
    reference !== null
      ? Number.parseInt(reference[1] ?? reference[2]!, reference[1] === undefined ? 10 : 16)
      : before.codePointAt(before.length - 1);
  if (codePoint === undefined) return null;
  if (reference === null && !FORBIDDEN_CHARACTER.test(String.fromCodePoint(codePoint))) return null;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A file's text, read in parts by the parser, and whole only to say where a refused file went wrong. */
interface XmlText {
  parts(): Iterable<string>;
  whole(): string;
}

/** Bytes decoded per part: the parser reads the file without it ever being one string of megabytes. */
const PART_BYTES = 1024 * 1024;

function decodeInput(input: string | Uint8Array, file: string): XmlText {
  if (typeof input === 'string') {
    // Cheap bound first: a string never takes more than 3 UTF-8 bytes per UTF-16 unit.
    if (
      input.length * 3 >= MAX_FISCAL_XML_BYTES &&
      new TextEncoder().encode(input).byteLength >= MAX_FISCAL_XML_BYTES
    ) {
      throw tooLarge(file);
    }
    refuseHeavyShape(input, file);
    const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
    return { parts: () => [text], whole: () => text };
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
  const notText = () =>
    new FiscalDocumentError('malformed_xml', file, null, `the file is not valid ${found.encoding} text`);
  const decoder = () => new TextDecoder(found.encoding, { fatal: true, ignoreBOM: false });
  const whole = () => {
    try {
      return decoder().decode(input);
    } catch {
      throw notText();
    }
  };
  if (found.encoding.startsWith('utf-16')) {
    // `<` is two bytes: the shape is measured on the text.
    const text = whole();
    refuseHeavyShape(text, file);
    return { parts: () => [text], whole: () => text };
  }
  // Where `<` is one byte, the shape is measured on the bytes: a file refused for it is never decoded.
  refuseHeavyShape(Buffer.from(input.buffer, input.byteOffset, input.byteLength), file);
  return {
    *parts() {
      const reading = decoder();
      for (let at = 0; at < input.byteLength; at += PART_BYTES) {
        const last = at + PART_BYTES >= input.byteLength;
        let part: string;
        try {
          part = reading.decode(input.subarray(at, at + PART_BYTES), { stream: !last });
        } catch {
          throw notText();
        }
        yield part;
      }
    },
    whole,
  };
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

/** Most elements a fiscal XML may hold: a CFDI of 8,000 concepts, or a DIAN invoice of 2,000 taxed lines, has fewer. */
export const MAX_XML_ELEMENTS = 40_000;
/**
 * Most characters (bytes, in an encoding where `<` is one byte) from one tag to the next, a tag and the text after it:
 * an embedded PDF of 750 KB in base64.
 */
export const MAX_XML_RUN = 1024 * 1024;

/**
 * Refuses, before the parser sees it, a file whose tree would take a worker past its memory budget: its elements are
 * counted, and its longest run of text (one string held whole). Comments and CDATA are not measured.
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
