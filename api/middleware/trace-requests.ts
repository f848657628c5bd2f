import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Middleware } from 'koa';

/**
 * One server span per request, named by its route (`POST /public/api/v1/workflow-steps/:reference/complete`), that
 * continues the caller's trace (`traceparent`) and is current while the request runs, so that the Temporal calls it
 * makes join the trace. The request's logs carry the trace id. Attribute names follow OpenTelemetry's HTTP conventions.
 */
export function traceRequests(tracer: Tracer): Middleware {
  return async (ctx, next) => {
    const parent = propagation.extract(context.active(), ctx.headers);
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path } },
      parent,
    );
    ctx.state.log = ctx.state.log.child({ traceId: span.spanContext().traceId });
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      // The route is known once a router matched; unmatched paths keep the bare method, so names stay few.
      const route = ctx.state.routePath;
      if (route) {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      // The error handler has rendered every failure by now: a server span is in error for a 5xx only.
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
