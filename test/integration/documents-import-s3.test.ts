import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { s3FileStorage } from '../../platform/storage/s3-file-storage.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { startObjectStorageSimulator, type ObjectStorageSimulator } from '../../simulators/object-storage/server.ts';
import { writeCfdiInvoices } from '../helpers/cfdi-files.ts';
import { makeCompany } from '../helpers/companies.ts';
import { opsWith, subscribeWebhook } from '../helpers/ops.ts';

const bucket = { bucket: 'ap-files', accessKeyId: 'import-access-key', secretAccessKey: 'import-secret-key' };
const RECEIVER_SECRET = 'import-receiver-secret';

let orm: Orm;
let simulator: ObjectStorageSimulator;
let receiver: ErpReceiver;
beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 2, statementTimeoutMs: 30_000, debug: false });
  simulator = await startObjectStorageSimulator(bucket);
  receiver = await startErpReceiver({ secret: RECEIVER_SECRET });
});
afterAll(async () => {
  await simulator?.stop();
  await receiver?.stop();
  await orm?.close();
});

/** `ops documents import` with the files kept in the simulator's bucket. */
function importIntoBucket(companyId: string, files: string[]) {
  return opsWith(
    {
      STORAGE_S3_BUCKET: bucket.bucket,
      STORAGE_S3_ENDPOINT: simulator.url,
      STORAGE_S3_ACCESS_KEY_ID: bucket.accessKeyId,
      STORAGE_S3_SECRET_ACCESS_KEY: bucket.secretAccessKey,
    },
    'documents',
    'import',
    '--company',
    companyId,
    ...files,
  );
}

describe('documents import into an S3 bucket', () => {
  it('stores every file of a parallel import in the bucket, signed, each readable back byte for byte', async () => {
    const { company } = await makeCompany(orm, { country: 'MEX' });
    const { files, contents } = writeCfdiInvoices(12, 2000);
    const before = simulator.requests.length;
    const result = await importIntoBucket(company.id, files);
    expect(result.stdout.errors).toEqual([]);
    expect(result.code).toBe(0);
    const puts = simulator.requests.slice(before).filter((request) => request.method === 'PUT');
    expect(puts.map((request) => request.status)).toEqual(Array(12).fill(200));

    const storage = s3FileStorage({ endpoint: simulator.url, region: 'us-east-1', forcePathStyle: true, ...bucket });
    const documents = await companyEm(orm, company.id).find(Document, {}, { orderBy: { documentNumber: 'asc' } });
    expect(documents).toHaveLength(12);
    for (const [n, document] of documents.entries()) {
      const stored = await storage.get(document.sourceXmlPath!);
      expect(Buffer.from(stored!.body).toString('utf8')).toBe(contents[n]);
    }
  });

  it('fails the command when the bucket refuses a file, ending the files under way and taking no other', async () => {
    const { company } = await makeCompany(orm, { country: 'MEX' });
    await subscribeWebhook(company.id, 'document.created', `${receiver.url}/hooks`, RECEIVER_SECRET);
    const { files } = writeCfdiInvoices(40, 3000);
    // The fourth file to reach the bucket is refused, for good; the others are taken.
    const keys: string[] = [];
    simulator.refusePuts((key) => {
      if (!keys.includes(key)) keys.push(key);
      return keys.indexOf(key) === 3;
    });
    const before = simulator.requests.length;
    try {
      // A command that kept working after it failed would not end: the helper kills it at its deadline.
      const result = await importIntoBucket(company.id, files);
      expect(result.stderr.error).toMatchObject({ code: 'internal_error' });
      expect(result.stderr.error.message).toMatch(/S3 PUT ap-files\/.+ failed: HTTP 403 AccessDenied/);
      expect(result.code).toBe(1);
    } finally {
      simulator.refusePuts(null);
    }
    // Every file the bucket took is a document, and no other; once the refused one failed, no file was taken
    // beyond the 7 then under way beside it.
    const stored = simulator.requests
      .slice(before)
      .filter((request) => request.method === 'PUT' && request.status === 200)
      .map((request) => request.key);
    const documents = await companyEm(orm, company.id).find(Document, {});
    expect(documents).toHaveLength(stored.length);
    expect(new Set(documents.map((document) => document.sourceXmlPath))).toEqual(new Set(stored));
    expect(keys.length).toBeLessThanOrEqual(3 + 8);
  });
});
