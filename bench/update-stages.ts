// Where an update's round trip goes, read from its workflow's history: the server stamps every event, and the bench
// and the Temporal dev server share the machine's clock.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { median } from './stats.ts';

const EventType = proto.temporal.api.enums.v1.EventType;

/** One timed call: a request through the API, or a raw `executeUpdate`, on one workflow. */
export interface TimedUpdate {
  workflowId: string;
  /** Epoch milliseconds when the caller sent it and when it had the whole answer. */
  sentAt: number;
  answeredAt: number;
}

/** Milliseconds of one call, stage by stage. */
export interface UpdateStages {
  /** From sending to the first workflow task being scheduled: the API's own work before the update, and the call. */
  beforeTask: number;
  /** Workflow tasks, each from scheduled to completed (a worker's poll, the task, its report). */
  workflowTasks: number;
  taskCount: number;
  /** Activities, each from scheduled to completed. */
  activities: number;
  /** From the update completed in the history to the caller holding the answer: the API's re-read and render. */
  afterUpdate: number;
  total: number;
}

const now = () => performance.timeOrigin + performance.now();

/** Runs one call on a workflow, noting when it was sent and answered. */
export async function timedUpdate(workflowId: string, call: () => Promise<unknown>): Promise<TimedUpdate> {
  const sentAt = now();
  await call();
  return { workflowId, sentAt, answeredAt: now() };
}

export const durationOf = (call: TimedUpdate) => call.answeredAt - call.sentAt;

const epochMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** The stages of each call, from the history of its workflow (fetched once per workflow). */
export async function updateStages(client: Client, calls: TimedUpdate[]): Promise<UpdateStages[]> {
  const histories = new Map<string, { type: number; at: number }[]>();
  for (const workflowId of new Set(calls.map((call) => call.workflowId))) {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    histories.set(
      workflowId,
      (history.events ?? []).map((event) => ({ type: Number(event.eventType), at: epochMs(event.eventTime) })),
    );
  }
  return calls.map((call) => {
    // Stamps are whole milliseconds: an event in the call's own millisecond belongs to it.
    const events = histories
      .get(call.workflowId)!
      .filter((event) => event.at >= Math.floor(call.sentAt) && event.at <= Math.ceil(call.answeredAt));
    const spans = (scheduled: number, closed: number[]) => {
      let sum = 0;
      let count = 0;
      let openedAt: number | null = null;
      for (const event of events) {
        if (event.type === scheduled) openedAt = event.at;
        else if (closed.includes(event.type) && openedAt !== null) {
          sum += event.at - openedAt;
          count += 1;
          openedAt = null;
        }
      }
      return { sum, count };
    };
    const tasks = spans(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, [EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED]);
    const activities = spans(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, [
      EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
      EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
    ]);
    const firstTask = events.find((event) => event.type === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
    const completed = events.findLast(
      (event) => event.type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
    );
    return {
      beforeTask: firstTask ? firstTask.at - call.sentAt : Number.NaN,
      workflowTasks: tasks.sum,
      taskCount: tasks.count,
      activities: activities.sum,
      afterUpdate: completed ? call.answeredAt - completed.at : Number.NaN,
      total: call.answeredAt - call.sentAt,
    };
  });
}

/** The median of each stage over many calls. */
export function medianStages(stages: UpdateStages[]): UpdateStages {
  const of = (key: keyof UpdateStages) =>
    median(stages.map((stage) => stage[key]).filter((value) => !Number.isNaN(value)));
  return {
    beforeTask: of('beforeTask'),
    workflowTasks: of('workflowTasks'),
    taskCount: of('taskCount'),
    activities: of('activities'),
    afterUpdate: of('afterUpdate'),
    total: of('total'),
  };
}

export const describeStages = (stages: UpdateStages) =>
  `${stages.total.toFixed(0)} ms: ${stages.beforeTask.toFixed(0)} before the first workflow task, ` +
  `${stages.taskCount} workflow task${stages.taskCount === 1 ? '' : 's'} ${stages.workflowTasks.toFixed(0)}, ` +
  `activities ${stages.activities.toFixed(0)}, ${stages.afterUpdate.toFixed(0)} after the update completed`;
