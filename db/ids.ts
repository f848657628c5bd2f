import { createHash, randomBytes } from 'node:crypto';
import { p } from '@mikro-orm/core';

/** The previous id's millisecond and random bits: ids of one millisecond count up from there. */
let previous = { time: -1, random: 0n };

/**
 * A time-ordered UUID (RFC 9562 version 7): new rows land at the end of their primary-key index. Within one
 * millisecond the random bits count up (the RFC's monotonic method), so rows created together sort by id in the
 * order they were created, as lists that break ties on id show them.
 */
export function uuidv7(now = Date.now()): string {
  // 73 random bits leave the 74-bit field room to count up.
  const random = now === previous.time ? previous.random + 1n : BigInt(`0x${randomBytes(10).toString('hex')}`) >> 7n;
  previous = { time: now, random };
  const high = random >> 62n;
  const low = (random & ((1n << 62n) - 1n)) | (2n << 62n);
  const hex = `${now.toString(16).padStart(12, '0')}7${high.toString(16).padStart(3, '0')}${low.toString(16).padStart(16, '0')}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A table's key: a UUIDv7 given as the row is created. */
export const uuidKey = () =>
  p
    .uuid()
    .primary()
    .onCreate(() => uuidv7());

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A name-based UUID (RFC 9562 version 5): the same name always gives the same reference. */
export function uuidv5(name: string, namespace = PRODUCT_NAMESPACE): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name)
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const PRODUCT_NAMESPACE = '6b1d9c3e-2f4a-5e8b-9c0d-1a2b3c4d5e6f';
