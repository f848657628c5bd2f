/** Something the product refuses on purpose, with a stable snake_case `code` that callers answer with. */
export class Refusal<Code extends string = string> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}
