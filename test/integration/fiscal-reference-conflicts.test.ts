// A fiscal reference names one document: a file carrying a known CUFE or SAT UUID is the same document only when it
// says the same. Another content (lines, amounts, parties), whatever its folio, is refused and logged on the stored
// document; the same bytes, or other bytes saying the same, stay "already present". Through `ops documents import` and
// through a DIAN mailbox sync.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  dianMailbox,
  FAST_FISCAL_SYNC_TIMING,
  registerCredentials,
  syncToTheEnd,
  uniqueNit,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { replaceOnce } from '../unit/fiscal/fixtures.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const CFDI = readFileSync(join(FIXTURES, 'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml'), 'utf8');
const CFDI_UUID = '6d7434a6-e3f2-47ad-9e4c-08849946afa0';
const ATTACHED = readFileSync(join(FIXTURES, 'dian/constructed-attached-document-invoice.xml'), 'utf8');
const DIAN_INVOICE = readFileSync(join(FIXTURES, 'dian/stenfrank-invoice_unsigned_dian_v2.xml'), 'utf8');
// Imported beside the refused files, so that the run takes something and lists the refusals among its errors.
const OTHER_CFDI = join(FIXTURES, 'cfdi/cfdiutils-cfdi40-valid-ingreso.xml');
const OTHER_DIAN = join(FIXTURES, 'dian/stenfrank-creditnote_signed_dian_v2.xml');

let api: TestApi;
const dir = tempDir('ap-fiscal-conflicts-');
beforeAll(async () => {
  api = await startTestApi({ config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
});
afterAll(() => api.close());

let files = 0;
function written(xml: string): string {
  const path = join(dir, `file-${++files}.xml`);
  writeFileSync(path, xml);
  return path;
}

async function conflictLogs(companyId: string, documentId: string) {
  return companyEm(api.orm, companyId).find(
    ActivityLog,
    { document: documentId, event: 'document.import_refused' },
    { orderBy: { createdAt: 'asc' } },
  );
}

describe('a known fiscal reference through `ops documents import`', () => {
  it('refuses a CFDI with the same UUID, folio and total but other lines or parties, logs it once, and keeps the stored one', async () => {
    const { company } = await makeCompany(api.orm, { country: 'MEX' });
    const first = await ops('documents', 'import', '--company', company.id, written(CFDI));
    expect(first.stdout.errors).toEqual([]);
    const { reference } = first.stdout.documents[0];

    const otherLine = written(replaceOnce(CFDI, 'RENTA DEL MES DE ENERO 2020', 'RENTA DEL MES DE FEBRERO 2020'));
    const otherCustomer = written(replaceOnce(CFDI, 'Nombre="KIJ, S.A DE C.V."', 'Nombre="OTRA, S.A DE C.V."'));
    const refused = await ops('documents', 'import', '--company', company.id, otherLine, otherCustomer, OTHER_CFDI);
    expect(refused.stdout.documents).toHaveLength(1);
    expect(refused.stdout.errors).toEqual([
      { file: otherLine, code: 'fiscal_reference_conflict', message: expect.stringContaining('differs in: lines') },
      {
        file: otherCustomer,
        code: 'fiscal_reference_conflict',
        message: expect.stringContaining('differs in: customer'),
      },
    ]);
    // The same folio and total: the message names both files' number and total, and the document it already is.
    for (const named of [CFDI_UUID, reference, 'number A-123456', 'total 17852.75 MXN']) {
      expect(refused.stdout.errors[0].message).toContain(named);
    }

    // Refused again (a retry, the same file in another run): still one log line per content.
    await ops('documents', 'import', '--company', company.id, otherLine, OTHER_CFDI);
    // The CLI imports files side by side: the two refusals are logged in either order.
    const logs = (await conflictLogs(company.id, reference)).sort((a, b) =>
      String(a.metadata['file_name']).localeCompare(String(b.metadata['file_name'])),
    );
    expect(logs.map((log) => log.metadata)).toEqual([
      expect.objectContaining({
        code: 'fiscal_reference_conflict',
        file_name: basename(otherLine),
        differences: ['lines'],
      }),
      expect.objectContaining({
        code: 'fiscal_reference_conflict',
        file_name: basename(otherCustomer),
        differences: ['customer'],
      }),
    ]);
    for (const log of logs) expect(log.actor).toEqual({ type: 'system', source: 'fiscal' });

    // Nothing of the stored document changed: one document, its line as first imported.
    const em = companyEm(api.orm, company.id);
    expect(await em.count(Document, { fiscalReference: CFDI_UUID })).toBe(1);
    const stored = await em.findOneOrFail(Document, { id: reference }, { populate: ['lineItems'] });
    expect(stored.lineItems.getItems().map((line) => line.name)).toEqual(['RENTA DEL MES DE ENERO 2020']);
  });

  it('counts the same bytes, or other bytes that say the same, as already present, and logs nothing', async () => {
    const { company } = await makeCompany(api.orm, { country: 'MEX' });
    const first = await ops('documents', 'import', '--company', company.id, written(CFDI));
    const { reference } = first.stdout.documents[0];
    const reindented = CFDI.replaceAll('\n  <', '\n\t<').replace(
      "<?xml version='1.0' encoding='UTF-8'?>",
      '<?xml version="1.0"?>',
    );
    expect(reindented).not.toBe(CFDI);
    const again = await ops('documents', 'import', '--company', company.id, written(CFDI), written(reindented));
    expect(again.stdout.errors).toEqual([]);
    expect(again.stdout.documents).toEqual([expect.objectContaining({ reference, created: false })]);
    expect(await conflictLogs(company.id, reference)).toEqual([]);
  });

  it('reads the stored file of a document imported before its digest was kept: the same content is kept, another refused', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const first = await ops('documents', 'import', '--company', company.id, written(DIAN_INVOICE));
    const { reference } = first.stdout.documents[0];
    const em = companyEm(api.orm, company.id);
    await em.nativeUpdate(Document, { id: reference }, { contentHash: null });

    // The AttachedDocument that wraps the same invoice says the same: present, and the digest is kept again.
    const wrapped = await ops('documents', 'import', '--company', company.id, written(ATTACHED));
    expect(wrapped.stdout.documents).toEqual([expect.objectContaining({ reference, created: false })]);
    const digest = (await em.fork().findOneOrFail(Document, { id: reference })).contentHash;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);

    const otherLine = written(
      replaceOnce(DIAN_INVOICE, '<cbc:Description>TV</cbc:Description>', '<cbc:Description>Radio</cbc:Description>'),
    );
    const refused = await ops('documents', 'import', '--company', company.id, otherLine, OTHER_DIAN);
    expect(refused.stdout.errors).toEqual([
      expect.objectContaining({ file: otherLine, code: 'fiscal_reference_conflict' }),
    ]);
    expect(refused.stdout.errors[0].message).toContain('differs in: lines');
    expect((await conflictLogs(company.id, reference)).map((log) => log.metadata)).toEqual([
      expect.objectContaining({ differences: ['lines'] }),
    ]);
  });
});

describe('a known fiscal reference through a DIAN mailbox sync', () => {
  it('refuses the copy with other lines in the intake log and on the document, and counts the same one present', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    await registerCredentials(api.orm, company, {
      dianForwarding: true,
      dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
    });
    const first = await ops('documents', 'import', '--company', company.id, written(DIAN_INVOICE));
    const { reference } = first.stdout.documents[0];

    const changed = replaceOnce(
      ATTACHED,
      '<cbc:Description>TV</cbc:Description>',
      '<cbc:Description>Radio</cbc:Description>',
    );
    expect(changed).not.toBe(ATTACHED);
    const day = 86_400_000;
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'misma.zip', data: zipSync({ 'ad-misma.xml': Buffer.from(ATTACHED) }) }],
      receivedAt: new Date(Date.now() - 2 * day),
    });
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'cambiada.zip', data: zipSync({ 'ad-cambiada.xml': Buffer.from(changed) }) }],
      receivedAt: new Date(Date.now() - day),
    });

    expect(await syncToTheEnd(api.sdk(apiKey))).toMatchObject({ status: 'finished' });

    const intake = await ops('fiscal', 'intake', '--company', company.id);
    expect(intake.stdout.refused).toEqual([
      expect.objectContaining({
        file: expect.stringMatching(/cambiada\.zip\/ad-cambiada\.xml$/),
        reason: 'refused',
        detail: expect.stringContaining('differs in: lines'),
      }),
    ]);
    expect(intake.stdout.refused[0].detail).toContain(`is already document ${reference}`);
    expect((await conflictLogs(company.id, reference)).map((log) => [log.actor, log.metadata])).toEqual([
      [
        { type: 'system', source: 'fiscal' },
        expect.objectContaining({ code: 'fiscal_reference_conflict', differences: ['lines'] }),
      ],
    ]);
    const documents = expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;
    expect(documents.map((document) => document.reference)).toEqual([reference]);
  });
});
