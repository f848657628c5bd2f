/** A failure the CLI reports as `{ error: { code, message } }` on stderr. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(code: string, message: string, exitCode = 1) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}

export const usage = (message: string) => new CliError('usage', message, 2);
export const notFound = (what: string, reference: string) =>
  new CliError(`${what}_not_found`, `No ${what.replace('_', ' ')} with reference ${reference}`);
