import { describe, expect, it } from 'vitest';
import {
  authorizationHeader,
  canonicalRequest,
  EMPTY_PAYLOAD_HASH,
  encodeKeyPath,
  parseAuthorization,
  sha256Hex,
  signature,
  stringToSign,
  toAmzDate,
} from '../../../platform/storage/aws-signature-v4.ts';

// The examples of https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
const params = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
  service: 's3',
  amzDate: toAmzDate(new Date('2013-05-24T00:00:00Z')),
};
const host = 'examplebucket.s3.amazonaws.com';

describe('AWS Signature Version 4', () => {
  it('reproduces the documented S3 GET Object example', () => {
    const request = {
      method: 'GET',
      canonicalUri: '/test.txt',
      headers: {
        Host: host,
        Range: 'bytes=0-9',
        'x-amz-content-sha256': EMPTY_PAYLOAD_HASH,
        'x-amz-date': params.amzDate,
      },
      payloadHash: EMPTY_PAYLOAD_HASH,
    };
    expect(params.amzDate).toBe('20130524T000000Z');
    expect(sha256Hex('')).toBe(EMPTY_PAYLOAD_HASH);
    expect(canonicalRequest(request)).toBe(
      `GET\n/test.txt\n\nhost:${host}\nrange:bytes=0-9\nx-amz-content-sha256:${EMPTY_PAYLOAD_HASH}\nx-amz-date:20130524T000000Z\n\n` +
        `host;range;x-amz-content-sha256;x-amz-date\n${EMPTY_PAYLOAD_HASH}`,
    );
    expect(stringToSign(canonicalRequest(request), params)).toBe(
      'AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
    );
    expect(signature(request, params)).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(authorizationHeader(request, params)).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('reproduces the documented S3 PUT Object example, with a payload and a key to encode', () => {
    const payloadHash = sha256Hex('Welcome to Amazon S3.');
    expect(payloadHash).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    const request = {
      method: 'PUT',
      canonicalUri: `/${encodeKeyPath('test$file.text')}`,
      headers: {
        Date: 'Fri, 24 May 2013 00:00:00 GMT',
        Host: host,
        'x-amz-content-sha256': payloadHash,
        'x-amz-date': params.amzDate,
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      },
      payloadHash,
    };
    expect(canonicalRequest(request).split('\n').slice(0, 2)).toEqual(['PUT', '/test%24file.text']);
    expect(signature(request, params)).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('reproduces the documented S3 GET Bucket example, with a query', () => {
    const request = {
      method: 'GET',
      canonicalUri: '/',
      query: [
        ['prefix', 'J'],
        ['max-keys', '2'],
      ] as const,
      headers: { Host: host, 'x-amz-content-sha256': EMPTY_PAYLOAD_HASH, 'x-amz-date': params.amzDate },
      payloadHash: EMPTY_PAYLOAD_HASH,
    };
    expect(canonicalRequest(request).split('\n')[2]).toBe('max-keys=2&prefix=J');
    expect(signature(request, params)).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });

  it('encodes each segment of a key the S3 way and keeps its slashes', () => {
    expect(encodeKeyPath('0190c0de-0000-7000-8000-000000000000/notes/Factura marzo (1).pdf')).toBe(
      '0190c0de-0000-7000-8000-000000000000/notes/Factura%20marzo%20%281%29.pdf',
    );
    expect(encodeKeyPath("a+b=c&d!e'f*g~h_i-j.k")).toBe('a%2Bb%3Dc%26d%21e%27f%2Ag~h_i-j.k');
    expect(encodeKeyPath('año/Señal.xml')).toBe('a%C3%B1o/Se%C3%B1al.xml');
  });

  it('reads an Authorization header back into its parts', () => {
    const header =
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-date,Signature=' +
      'a'.repeat(64);
    expect(parseAuthorization(header)).toEqual({
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      date: '20130524',
      region: 'us-east-1',
      service: 's3',
      signedHeaders: ['host', 'x-amz-date'],
      signature: 'a'.repeat(64),
    });
    expect(parseAuthorization('AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=')).toBeNull();
  });
});
