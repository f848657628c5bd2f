// One bad file never holds the others back: a mail whose AttachedDocument carries U+0000 (which PostgreSQL cannot
// store) between two good ones is refused with the element named, the sync finishes with the others imported, and the
// refusal is in the intake log the operator lists, once, however often the file is seen.
import { readFileSync } from 'node:fs';
import { expectStatus } from '@accounts-payable/client';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRefusals } from '../../services/fiscal-sync/intake-refusals.ts';
import { makeCompany } from '../helpers/companies.ts';
import { dianMailbox, FAST_FISCAL_SYNC_TIMING, registerCredentials, uniqueNit } from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const attachedDocument = readFileSync(new URL('dian/constructed-attached-document-invoice.xml', FIXTURES), 'utf8');
const creditNote = readFileSync(new URL('dian/stenfrank-creditnote_signed_dian_v2.xml', FIXTURES));

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
});
afterAll(() => api.close());

describe('the intake log', () => {
  it('records a file with a character XML forbids, and the sync imports the mail before and after it', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    await registerCredentials(api.orm, company, {
      dianForwarding: true,
      dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
    });
    const poisoned = attachedDocument.replace('FACTURADOR DE EJEMPLO', 'FACTURADOR\u0000DE EJEMPLO');
    expect(poisoned).not.toBe(attachedDocument);
    const day = 86_400_000;
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'nc.xml', data: creditNote }],
      receivedAt: new Date(Date.now() - 3 * day),
    });
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'z-envenenada.zip', data: zipSync({ 'ad-envenenada.xml': Buffer.from(poisoned) }) }],
      receivedAt: new Date(Date.now() - 2 * day),
    });
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'z-buena.zip', data: zipSync({ 'ad-buena.xml': Buffer.from(attachedDocument) }) }],
      receivedAt: new Date(Date.now() - day),
    });

    const started = expectStatus(await api.sdk(apiKey).startFiscalSync(), 202);
    await expect
      .poll(
        async () =>
          expectStatus(await api.sdk(apiKey).getFiscalSyncStatus({ query: { started_at: started.started_at } }), 200)
            .status,
        { timeout: 60_000, interval: 200 },
      )
      .toBe('finished');
    const documents = expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;
    expect(documents.map((document) => document.document_number).sort()).toEqual(['NC3', 'SETP990000008']);

    const listed = await ops('fiscal', 'intake', '--company', company.id);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toEqual({
      company: company.id,
      refused: [
        {
          file: expect.stringMatching(/z-envenenada\.zip\/ad-envenenada\.xml$/),
          reason: 'invalid_document',
          detail: expect.stringContaining('the character U+0000 is not allowed in XML'),
          recorded_at: expect.any(String),
        },
      ],
    });
    expect(listed.stdout.refused[0].detail).toContain('cbc:RegistrationName');

    // Seen again (a re-run, another attempt), the same file adds nothing; other bytes under that name are another file.
    const again = { name: listed.stdout.refused[0].file, reason: 'invalid_document', bytes: Buffer.from(poisoned) };
    await recordRefusals(api.orm, company.id, [again, again]);
    await recordRefusals(api.orm, company.id, [{ ...again, bytes: Buffer.from(`${poisoned} `) }]);
    expect((await ops('fiscal', 'intake', '--company', company.id)).stdout.refused).toHaveLength(2);

    // Another company sees none of it.
    const other = await makeCompany(api.orm, { country: 'COL' });
    expect((await ops('fiscal', 'intake', '--company', other.company.id)).stdout.refused).toEqual([]);
  });

  it('refuses a limit out of range', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const refused = await ops('fiscal', 'intake', '--company', company.id, '--limit', '0');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.error).toMatchObject({ code: 'usage' });
  });
});
