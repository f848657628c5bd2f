import { open } from 'node:fs/promises';
import { CliError } from './errors.ts';

/** A file an operator names, read whole only when it is at most `maxBytes`; else refused with `tooLargeCode`. */
export async function readBounded(path: string, maxBytes: number, tooLargeCode: string): Promise<Buffer> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new CliError(
      'file_unreadable',
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    // One byte more than allowed tells a file at the limit from a larger one, without reading the rest.
    const buffer = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await file.read(buffer, 0, maxBytes + 1, 0);
    if (bytesRead > maxBytes) throw new CliError(tooLargeCode, `${path} is larger than ${maxBytes} bytes`);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
