import { expectStatus, type DocumentListItem } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { setDianEventPerson } from '../../db/fiscal/dian-event-person.repository.ts';
import { companyEm } from '../../db/orm.ts';
import { ReceptionEvent } from '../../db/reception-events/reception-event.entity.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  dianSimulator,
  EVENT_PERSON,
  FAST_RECEPTION_EVENT_TIMING,
  registerTestCertificate,
} from '../helpers/dian-simulator.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';

// 800 workflows at once would hold up the other files' workflows on the suite's task queue: this file has its own,
// served by the product's worker as its own process, as in production.
const TASK_QUEUE = `reception-events-batch-${process.pid}`;

let api: TestApi;
let company: Company;
let apiKey: string;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  worker = spawnWorker(TASK_QUEUE);
  [api] = await Promise.all([
    startTestApi({ config: { receptionEvents: FAST_RECEPTION_EVENT_TIMING }, taskQueue: TASK_QUEUE }),
    worker.ready,
  ]);
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  await setDianEventPerson(companyEm(api.orm, company.id), company, EVENT_PERSON);
  await registerTestCertificate(api.orm, company);
}, 120_000);
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await api?.close();
});

/** Every document of the company with its invoice_reception_events, page by page. */
async function allReceptionEvents(): Promise<Map<string | null, DocumentListItem['invoice_reception_events']>> {
  const byCufe = new Map<string | null, DocumentListItem['invoice_reception_events']>();
  for (let page = 1; ; page++) {
    const body = expectStatus(
      await api.sdk(apiKey).listDocuments({ query: { fields: 'invoice_reception_events', page_size: 100, page } }),
      200,
    );
    for (const item of body.items) byCufe.set(item.fiscal_reference, item.invoice_reception_events);
    if (page >= body.total_pages) return byCufe;
  }
}

describe('a batch of 200 CUFEs × 4 event types', () => {
  it(
    'queues 800 events in one request and brings each to a final state, one failing CUFE not stopping the others',
    { timeout: 600_000 },
    async () => {
      const documents: Document[] = [];
      for (let chunk = 0; chunk < 10; chunk++) {
        documents.push(
          ...(await Promise.all(
            Array.from({ length: 20 }, () =>
              seedDocument(api.orm, company, { issueDate: new Date(Date.now() - 5 * 86_400_000) }),
            ),
          )),
        );
      }
      const cufes = documents.map((document) => document.fiscalReference!);
      const broken = cufes[17]!;
      await dianSimulator.behave(broken, { mode: 'fail' });

      const started = performance.now();
      const response = await api.sdk(apiKey).sendReceptionEventsBatch({
        body: { documents_fiscal_reference: cufes, events_type: ['030', '032', '033', '034'] },
      });
      const answeredInMs = performance.now() - started;
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        documents_fiscal_reference: cufes,
        unknown_documents_fiscal_reference: [],
        message:
          '800 events (200 documents × 4 event types): 800 queued, 0 queued again, 0 already processing, 0 already accepted',
      });
      // Persisted and started, not sent: a few seconds on a quiet machine; the bound leaves room for a busy CI runner.
      expect(answeredInMs).toBeLessThan(30_000);
      const em = companyEm(api.orm, company.id);
      expect(await em.count(ReceptionEvent, {})).toBe(800);

      // Polled in the read state (a cheap count), then checked through the API once. 800 signed events, each
      // verified by the simulator with xmlsec1, take 3 to 4 minutes beside the rest of the suite: the bound is what
      // a busy machine needs, not a target (the bench measures speed).
      await expect
        .poll(() => em.fork().count(ReceptionEvent, { status: 'processing' }), { timeout: 480_000, interval: 1_000 })
        .toBe(0);
      const events = await allReceptionEvents();
      expect(events.size).toBe(200);
      for (const cufe of cufes) {
        const byType = Object.fromEntries(events.get(cufe)!.map((event) => [event.event_type, event]));
        expect(Object.keys(byType).sort()).toEqual(['030', '032', '033', '034']);
        if (cufe === broken) {
          expect(byType['030']).toMatchObject({ status: 'failed', reason: expect.stringContaining('HTTP 503') });
          for (const eventType of ['032', '033', '034']) expect(byType[eventType]?.status, eventType).toBe('rejected');
          continue;
        }
        expect(byType['030']).toMatchObject({ event: 'acuse', status: 'accepted', issue_date: expect.any(String) });
        expect(byType['032']).toMatchObject({ event: 'recibo', status: 'accepted' });
        expect(byType['033']).toMatchObject({ event: 'aceptacion_expresa', status: 'accepted' });
        // Tacit acceptance contradicts the express one just registered: refused before sending.
        expect(byType['034']).toMatchObject({
          event: 'aceptacion_tacita',
          status: 'rejected',
          issue_date: null,
          reason: expect.stringContaining('contradicts the express acceptance (033)'),
        });
      }
      const sample = await dianSimulator.events(cufes[0]!);
      expect(sample.received.map((event) => event.eventType)).toEqual(['030', '032', '033']);
      expect(sample.registered).toEqual(['030', '032', '033']);
      // Only its 030 was sent, on each of its 3 attempts; a workflow task retried on a busy machine runs its local
      // activities again (they are at-least-once), so DIAN may see a few more.
      const sent = (await dianSimulator.events(broken)).received.map((event) => event.eventType);
      expect(new Set(sent)).toEqual(new Set(['030']));
      expect(sent.length).toBeGreaterThanOrEqual(3);
    },
  );
});
