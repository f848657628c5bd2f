// The simulator checks signatures as DIAN would, with tools that are not the product's: xmlsec1 (libxml2's
// XML-DSig) for the XAdES signature of the event and the WS-Security signature of the request, openssl for the chain
// of the certificate the request carries.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const XADES_SIGNED_PROPERTIES = 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties';
const WSU_TIMESTAMP = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd:Timestamp';
const WSA_TO = 'http://www.w3.org/2005/08/addressing:To';

export interface Verdict {
  valid: boolean;
  /** What the tool said, for the answer's message. */
  detail: string;
}

/** Runs a tool on files written to a directory of their own, removed afterwards. */
async function withFiles<T>(files: Record<string, string>, work: (path: (name: string) => string) => Promise<T>) {
  const dir = await mkdtemp(join(tmpdir(), 'dian-verify-'));
  const path = (name: string) => join(dir, name);
  try {
    await Promise.all(Object.entries(files).map(([name, content]) => writeFile(path(name), content)));
    return await work(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * DIAN trusts the authorities it names, not the machine's: the tools load no system store (OpenSSL would read the
 * whole bundle of web authorities on every run, four fifths of an xmlsec1 verification's time).
 */
const NO_SYSTEM_STORE = { ...process.env, SSL_CERT_FILE: '/dev/null', SSL_CERT_DIR: '/dev/null' };

async function tool(command: string, args: string[]): Promise<Verdict> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 20_000, env: NO_SYSTEM_STORE });
    return { valid: true, detail: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const failed = error as { code?: unknown; stderr?: string; stdout?: string; message: string };
    if (failed.code === 'ENOENT')
      throw new Error(`${command} is not installed (apt-get install ${command === 'xmlsec1' ? 'xmlsec1' : 'openssl'})`);
    // What the tool found, without the lines that only name its temporary files.
    const said = `${failed.stdout ?? ''}${failed.stderr ?? ''}`
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.includes(tmpdir()));
    return { valid: false, detail: said.slice(-3).join(' ') || failed.message };
  }
}

/**
 * The XAdES signature of a UBL document: every reference and the signature value, and the signing certificate's
 * chain up to one of `trustedCas` (PEM); with none given, the chain is not checked (`--insecure`), the rest is.
 */
export async function verifyXades(xml: string, trustedCas: string[]): Promise<Verdict> {
  const cas = Object.fromEntries(trustedCas.map((pem, index) => [`ca-${index}.pem`, pem]));
  return withFiles({ 'document.xml': xml, ...cas }, (path) =>
    tool('xmlsec1', [
      '--verify',
      ...(trustedCas.length ? Object.keys(cas).flatMap((name) => ['--trusted-pem', path(name)]) : ['--insecure']),
      '--id-attr:Id',
      XADES_SIGNED_PROPERTIES,
      path('document.xml'),
    ]),
  );
}

/** The WS-Security signature of a SOAP request, with the key of the certificate it carries (`tokenPem`). */
export async function verifyWsSecurity(envelope: string, tokenPem: string): Promise<Verdict> {
  return withFiles({ 'envelope.xml': envelope, 'token.pem': tokenPem }, (path) =>
    tool('xmlsec1', [
      '--verify',
      '--pubkey-cert-pem',
      path('token.pem'),
      '--id-attr:Id',
      WSU_TIMESTAMP,
      '--id-attr:Id',
      WSA_TO,
      path('envelope.xml'),
    ]),
  );
}

/** The certificate a request carries chains up to one of `trustedCas`; with none given, any certificate passes. */
export async function verifyChain(certificatePem: string, trustedCas: string[]): Promise<Verdict> {
  if (trustedCas.length === 0) return { valid: true, detail: 'no trusted authorities configured' };
  return withFiles({ 'certificate.pem': certificatePem, 'cas.pem': trustedCas.join('\n') }, (path) =>
    tool('openssl', ['verify', '-no-CApath', '-no-CAstore', '-CAfile', path('cas.pem'), path('certificate.pem')]),
  );
}
