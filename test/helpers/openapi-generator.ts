// openapi-generator, the generator integrators reach for in most languages: its CLI jar from Maven Central, fetched
// once per machine into the project's cache and checked against its pinned digest, run on the machine's Java (17+).
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';

const VERSION = '7.25.0';
const SHA256 = '41ce4f6b07f196676439d710759fa1ced7a08066d06ff1bf314681470289efae';
const URL_OF_JAR = `https://repo1.maven.org/maven2/org/openapitools/openapi-generator-cli/${VERSION}/openapi-generator-cli-${VERSION}.jar`;

/**
 * Options the served document needs from openapi-generator 7 (its OpenAPI 3.1 support is in beta): `apis,models,
 * supportingFiles` leaves out its client for the 3.1 `webhooks`, whose imports come out empty in TypeScript (the
 * event bodies are models all the same), and `skipFormModel=false` generates the multipart note's form model that the
 * documents API imports. The README gives integrators the same options.
 */
export const GENERATOR_GLOBAL_PROPERTIES = 'apis,models,supportingFiles,skipFormModel=false';

/** The jar's path (`OPENAPI_GENERATOR_JAR` names one installed elsewhere). */
export async function locateOpenApiGenerator(): Promise<string> {
  if (process.env.OPENAPI_GENERATOR_JAR) return process.env.OPENAPI_GENERATOR_JAR;
  const cache = process.env.AP_CACHE_DIR ?? join(homedir(), '.cache', 'accounts-payable');
  const jar = join(cache, `openapi-generator-cli-${VERSION}.jar`);
  if (existsSync(jar)) return jar;

  await mkdir(cache, { recursive: true });
  const partial = `${jar}.${process.pid}.partial`;
  const answer = await fetch(URL_OF_JAR);
  if (!answer.ok || !answer.body) throw new Error(`Maven Central answered ${answer.status} for ${URL_OF_JAR}`);
  const digest = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      digest.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(answer.body as ReadableStream), hashing, createWriteStream(partial));
  const actual = digest.digest('hex');
  if (actual !== SHA256) {
    await rm(partial, { force: true });
    throw new Error(`openapi-generator-cli ${VERSION} has sha256 ${actual}, not the pinned ${SHA256}`);
  }
  await rename(partial, jar);
  return jar;
}
