import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import { ApiKey, type Scope } from './api-key.entity.ts';
import { Company } from './company.entity.ts';

const KEY_FORMAT = /^(apk_[a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

function hashKey(plaintext: string): Buffer {
  return createHash('sha256').update(plaintext).digest();
}

/** Creates a key for the company and returns its plaintext, which is never stored nor shown again. */
export function issueApiKey(
  em: EntityManager,
  company: Company,
  scopes: Scope[] = [],
): { apiKey: ApiKey; plaintext: string } {
  const id = Array.from(randomBytes(12), (byte) => 'abcdefghijklmnopqrstuvwxyz0123456789'[byte % 36]).join('');
  const prefix = `apk_${id}`;
  const plaintext = `${prefix}_${randomBytes(32).toString('base64url')}`;
  const apiKey = em.create(ApiKey, { company, prefix, secretHash: hashKey(plaintext).toString('hex'), scopes });
  return { apiKey, plaintext };
}

/** A live key as a request sees it: its company, and what the key may do. */
export type PresentedKey = Pick<ApiKey, 'id' | 'prefix' | 'scopes'> & { company: Company };

/**
 * Finds the live key matching a presented plaintext, with its company, in one prepared statement (every request runs
 * it); compares hashes in constant time.
 */
export async function findApiKey(em: EntityManager, plaintext: string): Promise<PresentedKey | null> {
  const match = KEY_FORMAT.exec(plaintext);
  if (!match) return null;
  const [row] = await runStatement<
    { key_id: string; key_secret_hash: string; key_scopes: Scope[] } & Record<string, unknown>
  >(
    em,
    `select k.id as key_id, k.secret_hash as key_secret_hash, k.scopes as key_scopes, c.*
     from "api_keys" k join "companies" c on c.id = k.company_id where k.prefix = :prefix and k.revoked_at is null`,
    { prefix: match[1] },
  );
  if (!row) return null;
  const { key_id: id, key_secret_hash: secretHash, key_scopes: scopes, ...company } = row;
  const expected = Buffer.from(secretHash, 'hex');
  const presented = hashKey(plaintext);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return null;
  return { id, prefix: match[1]!, scopes, company: em.map(Company, company) };
}
