// The one error type of the fiscal parsers: a stable code, the file and the element at fault. What it quotes of the
// file (its name, an element's name, the parser's message) is made storable here, as it enters.
import { storableName, storableText } from './storable-text.ts';

export type FiscalErrorCode =
  | 'file_too_large'
  | 'malformed_xml'
  | 'unsupported_encoding'
  | 'dtd_not_allowed'
  | 'unsupported_document'
  | 'missing_element'
  | 'invalid_value'
  | 'invalid_fiscal_reference'
  | 'unstamped_cfdi'
  | 'totals_mismatch'
  | 'exchange_rate_mismatch';

/** Why a fiscal file was refused. `element` is a readable path such as `Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount`. */
export class FiscalDocumentError extends Error {
  readonly code: FiscalErrorCode;
  readonly file: string;
  /** Null when the fault is not in one element (size, encoding, XML syntax). */
  readonly element: string | null;
  /** Position of an XML syntax error, when known. */
  readonly line: number | null;
  readonly column: number | null;

  constructor(
    code: FiscalErrorCode,
    file: string,
    element: string | null,
    detail: string,
    position: { line: number; column: number } | null = null,
  ) {
    file = storableName(file);
    element = element === null ? null : storableName(element);
    const where = element === null ? '' : ` ${element}:`;
    const at = position === null ? '' : ` (line ${position.line}, column ${position.column})`;
    super(storableText(`${file}:${where} ${detail}${at}`));
    this.name = 'FiscalDocumentError';
    this.code = code;
    this.file = file;
    this.element = element;
    this.line = position?.line ?? null;
    this.column = position?.column ?? null;
  }
}
