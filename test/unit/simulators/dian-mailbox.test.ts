import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDianMailboxSimulator, type DianMailboxSimulator } from '../../../simulators/dian-mailbox/server.ts';

// The mailbox sits two levels down a directory of this test's own, so that a delivery escaping it would show.
const root = mkdtempSync(join(tmpdir(), 'ap-mailbox-simulator-'));
let simulator: DianMailboxSimulator;

beforeAll(async () => {
  simulator = await startDianMailboxSimulator({ mailboxDir: join(root, 'a', 'mailbox') });
});
afterAll(() => simulator.stop());

const deliver = (reference: string) =>
  fetch(`${simulator.url}/_control/mailboxes/${reference}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject: 'Factura', attachments: [] }),
  });

describe('the DIAN mailbox simulator', () => {
  it("delivers into the company's own folder", async () => {
    const reference = '0b6f1c8e-3d0a-4c55-9a4e-6f1d2b7c9e10';
    const answer = await deliver(reference);
    expect(answer.status).toBe(201);
    const { path } = (await answer.json()) as { path: string };
    expect(dirname(dirname(path))).toBe(join(simulator.mailboxDir, reference));
    expect(existsSync(path)).toBe(true);
  });

  it('refuses a reference that would leave the mailbox, and writes nothing outside it', async () => {
    for (const reference of ['..%2F..%2Fx', '..%2Fsibling', 'a%2Fb', '%2Ftmp%2Fx']) {
      const answer = await deliver(reference);
      expect(answer.status, reference).toBe(400);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect(readdirSync(root)).toEqual(['a']);
    expect(readdirSync(join(root, 'a'))).toEqual(['mailbox']);
  });
});
