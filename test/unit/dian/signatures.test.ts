// The product's signatures, checked by xmlsec1 (libxml2's XML-DSig), not by the libraries that made them. The
// fixture comes from `node dev/dian-signed-fixture.ts`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, inject, it } from 'vitest';
import { signedEnvelope } from '../../../services/dian/soap.ts';
import { DIAN_SIGNATURE_POLICY } from '../../../services/dian/xades.ts';
import { makeSigningAuthority } from '../../harness/signing-certificates.ts';
import { identity, rendition, signed } from './events.ts';

const run = promisify(execFile);
const FIXTURES = new URL('../../fixtures/dian/', import.meta.url).pathname;
const SIGNED_PROPERTIES = 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties';
const dir = mkdtempSync(join(tmpdir(), 'ap-signatures-'));
let files = 0;

/** xmlsec1's verdict on a document, with `args` naming keys and trust. */
async function xmlsec(xml: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  const file = join(dir, `document-${++files}.xml`);
  writeFileSync(file, xml);
  try {
    const { stdout, stderr } = await run('xmlsec1', ['--verify', ...args, file]);
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string };
    return { ok: false, output: `${failed.stdout}${failed.stderr}` };
  }
}
const caFile = (pem: string) => {
  const file = join(dir, `ca-${++files}.pem`);
  writeFileSync(file, pem);
  return file;
};

const read = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
});

describe('the signed ApplicationResponse kept as a fixture', () => {
  const fixture = readFileSync(join(FIXTURES, 'signed-application-response-030.xml'), 'utf8');
  const trust = ['--trusted-pem', join(FIXTURES, 'signing-test-ca.pem'), '--id-attr:Id', SIGNED_PROPERTIES];

  it('verifies with xmlsec1 against its authority, and one changed byte does not', async () => {
    const verified = await xmlsec(fixture, trust);
    expect(verified.output).toContain('SignedInfo References (ok/all): 3/3');
    expect(verified.ok).toBe(true);
    const tampered = fixture.replace('<cbc:ID>SETP990000008</cbc:ID>', '<cbc:ID>SETP990000009</cbc:ID>');
    expect(tampered).not.toBe(fixture);
    expect((await xmlsec(tampered, trust)).ok).toBe(false);
  });

  it("follows DIAN's policy v2: policy and hash, Bogotá signing time, signing certificate, role, second extension", () => {
    const event = read.parse(fixture).ApplicationResponse;
    const signature = event.UBLExtensions.UBLExtension[1].ExtensionContent.Signature;
    expect(signature.SignedInfo.CanonicalizationMethod.Algorithm).toBe(
      'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
    );
    expect(signature.SignedInfo.SignatureMethod.Algorithm).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(signature.SignedInfo.Reference.map((reference: { URI: string }) => reference.URI)).toEqual([
      '',
      '#xmldsig-fixture-030-keyinfo',
      '#xmldsig-fixture-030-signedprops',
    ]);
    expect(signature.Object.QualifyingProperties.Target).toBe(`#${signature.Id}`);
    const properties = signature.Object.QualifyingProperties.SignedProperties.SignedSignatureProperties;
    expect(properties.SigningTime).toBe('2026-11-25T10:30:00.000-05:00');
    expect(properties.SignaturePolicyIdentifier.SignaturePolicyId).toMatchObject({
      SigPolicyId: { Identifier: DIAN_SIGNATURE_POLICY.identifier },
      SigPolicyHash: { DigestValue: 'dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=' },
    });
    expect(properties.SigningCertificate.Cert.CertDigest.DigestValue).toEqual(expect.any(String));
    expect(properties.SignerRole.ClaimedRoles.ClaimedRole).toBe('third party');
  });
});

describe('signing an event', () => {
  it('makes a signature xmlsec1 accepts with the authority, and refuses with another', async () => {
    const xml = await signed(rendition('030', 'a'.repeat(96)).xml, identity());
    const suite = caFile(inject('signingAuthority').ca);
    expect((await xmlsec(xml, ['--trusted-pem', suite, '--id-attr:Id', SIGNED_PROPERTIES])).ok).toBe(true);
    const stranger = makeSigningAuthority(join(dir, `stranger-${++files}`));
    const elsewhere = await xmlsec(xml, ['--trusted-pem', caFile(stranger.ca), '--id-attr:Id', SIGNED_PROPERTIES]);
    expect(elsewhere.ok).toBe(false);
  });

  it('signs a SOAP request over its Timestamp and wsa:To with WS-Security, as xmlsec1 checks it', async () => {
    const signer = identity();
    const envelope = signedEnvelope({
      operation: 'SendEventUpdateStatus',
      to: 'https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc',
      body: '<wcf:SendEventUpdateStatus><wcf:contentFile>UEsFBg==</wcf:contentFile></wcf:SendEventUpdateStatus>',
      identity: signer,
      now: new Date(),
    });
    const key = join(dir, `token-${++files}.pem`);
    writeFileSync(key, signer.certificate.toString());
    const ids = [
      '--id-attr:Id',
      'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd:Timestamp',
      '--id-attr:Id',
      'http://www.w3.org/2005/08/addressing:To',
    ];
    const verified = await xmlsec(envelope, ['--pubkey-cert-pem', key, ...ids]);
    expect(verified.output).toContain('SignedInfo References (ok/all): 2/2');
    expect(verified.ok).toBe(true);
    const elsewhere = envelope.replace('vpfe-hab.dian.gov.co', 'vpfe.dian.gov.co');
    expect((await xmlsec(elsewhere, ['--pubkey-cert-pem', key, ...ids])).ok).toBe(false);
    const header = read.parse(envelope).Envelope.Header;
    expect(header.Security.BinarySecurityToken['#text']).toBe(signer.certificate.raw.toString('base64'));
    expect(header.Action).toBe('http://wcf.dian.colombia/IWcfDianCustomerServices/SendEventUpdateStatus');
  });
});
