import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../metrics.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    log: Logger;
    /** The matched route's declared path, for logs and metrics without unbounded cardinality. */
    routePath?: string;
  }
}

/** Gives each request an id (the caller's `X-Request-Id` when sane), a child logger, and one access-log line. */
export function requestContext(logger: Logger, metrics?: HttpMetrics): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      // Unmatched paths share one label, so scanners cannot blow up the metrics' cardinality.
      metrics?.observe(
        ctx.method,
        ctx.state.routePath ?? 'unmatched',
        ctx.status,
        (performance.now() - started) / 1000,
      );
      ctx.state.log.info(
        {
          method: ctx.method,
          route: ctx.state.routePath ?? null,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    }
  };
}
