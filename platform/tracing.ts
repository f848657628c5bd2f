import type { Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import packageJson from '../package.json' with { type: 'json' };

/** The OpenTelemetry trace SDK of a process, exporting OTLP over HTTP. */
export interface Tracing {
  /** The tracer of the product's own spans (the API's request spans). */
  tracer: Tracer;
  /** Where spans recorded outside this process's tracers (those of the workflow sandbox) are handed for export. */
  processor: SpanProcessor;
  /** Names the service in every exported span. */
  resource: Resource;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

export type ServiceName = 'accounts-payable-api' | 'accounts-payable-worker';

/**
 * Starts tracing when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); otherwise starts nothing and answers null, so that an untraced process pays
 * nothing. The exporter, sampler and batching read the other standard `OTEL_*` variables themselves.
 */
export function startTracing(serviceName: ServiceName, env: NodeJS.ProcessEnv = process.env): Tracing | null {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  // `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (read by the env detector) win over our defaults.
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': serviceName, 'service.version': packageJson.version }))
    .merge(envDetectorSync.detect()) as Resource;
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  // The async-hooks context manager carries the current span across awaits: from a request to its Temporal calls.
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  return {
    tracer: provider.getTracer(packageJson.name, packageJson.version),
    processor,
    resource,
    shutdown: () => provider.shutdown(),
  };
}
