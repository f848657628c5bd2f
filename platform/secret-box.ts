import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Encrypts webhook secrets at rest (AES-256-GCM); the key never lives in the database. */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('The webhook secret key must be 32 bytes (64 hex characters)');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        ciphertext.toString('base64url'),
      ].join(':');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split(':');
      if (version !== 'v1' || !iv || !tag || !ciphertext) throw new Error('Unreadable sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The key from WEBHOOK_SECRET_KEY (64 hex characters), required in production. Elsewhere, when unset, a key kept in
 * the embedded default's data directory (created once), so that `npm start` works without configuration.
 */
export function secretBoxFromEnv(env: NodeJS.ProcessEnv = process.env): SecretBox {
  if (env.WEBHOOK_SECRET_KEY) {
    if (!/^[0-9a-fA-F]{64}$/.test(env.WEBHOOK_SECRET_KEY))
      throw new Error('WEBHOOK_SECRET_KEY must be 64 hex characters (openssl rand -hex 32)');
    return secretBox(Buffer.from(env.WEBHOOK_SECRET_KEY, 'hex'));
  }
  if (env.NODE_ENV === 'production')
    throw new Error('WEBHOOK_SECRET_KEY is required in production (openssl rand -hex 32)');
  const file = join(env.AP_DATA_DIR ?? join(process.cwd(), '.data'), 'webhook-secret.key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return secretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'));
}
