// An OpenTelemetry collector for the tests: receives traces over OTLP/HTTP in JSON (`POST /v1/traces`, what the
// product's exporter sends) and keeps every span, flattened, with the service that sent it.
import { failure, reply, serveJson } from '../http.ts';
import { isObject } from '../../platform/json.ts';

/** A span as exported, with its resource's service name and its attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface OtlpCollector {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` (exporters append `/v1/traces`). */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received, readable or not. */
  readonly exports: number;
  stop: () => Promise<void>;
}

type KeyValue = { key: string; value: Record<string, unknown> };

/** OTLP's AnyValue as a plain value (64-bit integers arrive as strings in JSON). */
function plain(value: Record<string, unknown> | undefined): unknown {
  if (!value) return null;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(plain);
  return value;
}

const attributesOf = (list: unknown): Record<string, unknown> =>
  Object.fromEntries(((list as KeyValue[] | undefined) ?? []).map(({ key, value }) => [key, plain(value)]));

export async function startOtlpCollector(options: { port?: number; host?: string } = {}): Promise<OtlpCollector> {
  const spans: ReceivedSpan[] = [];
  let exports = 0;
  const server = await serveJson(({ method, segments, headers, json }) => {
    if (method !== 'POST' || segments.join('/') !== 'v1/traces')
      return failure(404, 'not_found', 'Only POST /v1/traces is served');
    exports += 1;
    if (!String(headers['content-type']).startsWith('application/json') || !isObject(json))
      return failure(415, 'unsupported_media_type', 'This collector reads OTLP/JSON only');
    for (const resourceSpans of (json.resourceSpans as Record<string, any>[] | undefined) ?? []) {
      const name = attributesOf(resourceSpans.resource?.attributes)['service.name'];
      const service = typeof name === 'string' ? name : '';
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            status: span.status?.code ?? 0,
          });
        }
      }
    }
    // ExportTraceServiceResponse: everything accepted.
    return reply(200, {});
  }, options);
  return {
    url: server.url,
    spans,
    get exports() {
      return exports;
    },
    stop: server.stop,
  };
}
