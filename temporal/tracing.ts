import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type SerializableSpan,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Tracing } from '../platform/tracing.ts';

/** The SDK's workflow interceptors, a module the bundler puts into the workflow code beside workflows/index.ts. */
const WORKFLOW_INTERCEPTORS = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

/** For a client (the API's, the worker's own): a span per start, update, signal or query, whose context travels in the call's headers. */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/**
 * For the worker: a span per workflow run, update, signal and scheduled activity, recorded inside the sandbox and
 * handed out through a sink to this process's exporter; and a span per activity execution, parent of the workflow
 * calls it makes.
 */
export function tracingWorkerOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const exporter = makeWorkflowExporter(tracing.processor, tracing.resource);
  return {
    interceptors: {
      workflowModules: [WORKFLOW_INTERCEPTORS],
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: {
      exporter: { export: { fn: (info, spans: SerializableSpan[]) => exporter.export.fn(identity(info), spans) } },
    },
  };
}

/**
 * What of a workflow's info its spans carry. The SDK's sink would attach all of it (search attributes with CUFE and
 * document numbers, memo, last failure) to every span: the ids find the workflow in Temporal, which keeps the rest.
 */
function identity(info: WorkflowInfo): WorkflowInfo {
  const { workflowId, runId, workflowType, taskQueue, namespace, attempt } = info;
  return { workflowId, runId, workflowType, taskQueue, namespace, attempt } as WorkflowInfo;
}
