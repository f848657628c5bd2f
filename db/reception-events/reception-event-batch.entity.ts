import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';

/** How long to wait and retry; from the API's configuration, so tests shorten them without mocking time. */
export interface ReceptionEventTiming {
  /** Waiting for an earlier event of the same document: re-check from initialMs, doubling up to maxMs; give up after giveUpMs. */
  wait: { initialMs: number; maxMs: number; giveUpMs: number };
  /** Transient DIAN failures: retry from initialMs, doubling up to maxMs, at most `attempts` tries of `timeoutMs` each. */
  submit: { initialMs: number; maxMs: number; attempts: number; timeoutMs: number };
}

/**
 * Events persisted as `processing` whose workflows are not yet known to have started: written in the statement that
 * queues them, removed once the batch's workflow has started theirs. One left behind (its API process died, or
 * Temporal was unreachable, right after the commit) is handed over by the sweep.
 */
export const ReceptionEventBatch = defineEntity({
  name: 'ReceptionEventBatch',
  tableName: 'reception_event_batches',
  indexes: [{ properties: ['createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    company: () => p.manyToOne(Company),
    eventIds: p.array().columnType('uuid[]'),
    /** Those of them sent again after a rejection or failure: their run replaces the previous round's. */
    resubmittedIds: p.array().columnType('uuid[]'),
    /** The pacing of the API that queued them. */
    timing: p.json<ReceptionEventTiming>(),
    createdAt: p.datetime(),
  },
});
export type ReceptionEventBatch = InferEntity<typeof ReceptionEventBatch>;
