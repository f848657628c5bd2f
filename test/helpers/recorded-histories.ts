// Workflow histories of the suite's own runs, kept as fixtures. The replay test replays them with today's workflow
// code, so a change that would break workflows already running fails CI.
// `RECORD_HISTORIES=1 npx vitest run` records them again at the end of a full run.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

type History = proto.temporal.api.history.v1.IHistory;
const { History } = proto.temporal.api.history.v1;
/** Longs, enums and bytes as strings; `History.fromObject` reads them back. */
const AS_JSON = { longs: String, enums: String, bytes: String } as const;

export const HISTORIES_DIR = new URL('../fixtures/histories/', import.meta.url).pathname;

/** At most this many histories per workflow type: those that together show the most of what the type does. */
const PER_TYPE = 4;
/** Executions of a type looked at when choosing. */
const CANDIDATES = 600;
/** The files a recording replaces: `<type>.recorded-<n>.json`. */
const RECORDED = /^\w+\.recorded-\d+\.json$/;

export interface RecordedHistory {
  file: string;
  workflowType: string;
  workflowId: string;
  history: History;
}

const markerData = (
  marker: proto.temporal.api.history.v1.IMarkerRecordedEventAttributes,
  key: string,
): Record<string, unknown> => JSON.parse(Buffer.from(marker.details?.[key]?.payloads?.[0]?.data ?? '{}').toString());

/** What a history shows: its event types, and the activities, updates, signals and patches in it. */
function features(history: History): Set<string> {
  const shown = new Set<string>();
  for (const event of history.events ?? []) {
    shown.add(`event:${event.eventType}`);
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activity) shown.add(`activity:${activity}`);
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    if (update) shown.add(`update:${update}`);
    const signal = event.workflowExecutionSignaledEventAttributes?.signalName;
    if (signal) shown.add(`signal:${signal}`);
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_patch') shown.add(`patch:${String(markerData(marker, 'patch-data').id)}`);
    if (marker?.markerName === 'core_local_activity')
      shown.add(`local-activity:${String(markerData(marker, 'data').activity_type)}`);
    const failed = event.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type;
    if (failed) shown.add(`activity-failure:${failed}`);
  }
  return shown;
}

/**
 * Writes, for each workflow type, the few histories of this Temporal server that together cover the most features,
 * chosen greedily, in place of the earlier recordings.
 */
export async function recordHistories(client: Client, workflowTypes: string[], dir = HISTORIES_DIR): Promise<number> {
  mkdirSync(dir, { recursive: true });
  // Histories kept under another name (from before a patch, say) stay.
  for (const file of readdirSync(dir)) if (RECORDED.test(file)) rmSync(join(dir, file));
  let written = 0;
  for (const workflowType of workflowTypes) {
    const candidates: { workflowId: string; history: History; shown: Set<string> }[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = '${workflowType}'` })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      candidates.push({ workflowId: execution.workflowId, history, shown: features(history) });
      if (candidates.length >= CANDIDATES) break;
    }
    const covered = new Set<string>();
    for (let n = 0; n < PER_TYPE; n++) {
      const gain = (candidate: (typeof candidates)[number]) =>
        [...candidate.shown].filter((feature) => !covered.has(feature)).length;
      const best = candidates.toSorted(
        (a, b) => gain(b) - gain(a) || (a.history.events?.length ?? 0) - (b.history.events?.length ?? 0),
      )[0];
      if (!best || gain(best) === 0) break;
      best.shown.forEach((feature) => covered.add(feature));
      candidates.splice(candidates.indexOf(best), 1);
      writeFileSync(
        join(dir, `${workflowType}.recorded-${n + 1}.json`),
        `${JSON.stringify({ workflowId: best.workflowId, history: History.toObject(History.fromObject(best.history), AS_JSON) })}\n`,
      );
      written += 1;
    }
  }
  return written;
}

/** Every history in the directory, with the workflow type its file is named after (`<type>.<label>.json`). */
export function recordedHistories(dir = HISTORIES_DIR): RecordedHistory[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const { workflowId, history } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        workflowId: string;
        history: unknown;
      };
      return {
        file,
        workflowType: file.slice(0, file.indexOf('.')),
        workflowId,
        history: History.fromObject(history as Record<string, unknown>),
      };
    });
}
