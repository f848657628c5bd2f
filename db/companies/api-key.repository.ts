import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '../orm.ts';
import { ApiKey, type Scope } from './api-key.entity.ts';
import type { Company } from './company.entity.ts';

const KEY_FORMAT = /^(apk_[a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

function hashKey(plaintext: string): Buffer {
  return createHash('sha256').update(plaintext).digest();
}

/** Creates a key for the company and returns its plaintext, which is never stored nor shown again. */
export function issueApiKey(em: EntityManager, company: Company, scopes: Scope[] = []): { apiKey: ApiKey; plaintext: string } {
  const id = Array.from(randomBytes(12), (byte) => 'abcdefghijklmnopqrstuvwxyz0123456789'[byte % 36]).join('');
  const prefix = `apk_${id}`;
  const plaintext = `${prefix}_${randomBytes(32).toString('base64url')}`;
  const apiKey = em.create(ApiKey, { company, prefix, secretHash: hashKey(plaintext).toString('hex'), scopes });
  return { apiKey, plaintext };
}

/** Finds the live key matching a presented plaintext, with its company; compares hashes in constant time. */
export async function findApiKey(em: EntityManager, plaintext: string): Promise<ApiKey | null> {
  const match = KEY_FORMAT.exec(plaintext);
  if (!match) return null;
  const apiKey = await em.findOne(ApiKey, { prefix: match[1]!, revokedAt: null }, { populate: ['company'], filters: false });
  if (!apiKey) return null;
  const expected = Buffer.from(apiKey.secretHash, 'hex');
  const presented = hashKey(plaintext);
  return expected.length === presented.length && timingSafeEqual(expected, presented) ? apiKey : null;
}
