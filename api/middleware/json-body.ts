import { createRequire } from 'node:module';
import type { Context, Middleware } from 'koa';
import { Upload } from './uploads.ts';

interface CoBody {
  json(
    ctx: Context,
    options: { limit: string; strict: boolean; returnRawBody: true; onProtoPoisoning: 'remove' },
  ): Promise<{ parsed: unknown; raw: string }>;
}
const coBody = createRequire(import.meta.url)('co-body') as CoBody;

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

declare module 'koa' {
  interface Request {
    body?: unknown;
    /** The body's text as received, for the Idempotency-Key hash. */
    rawBody?: string;
  }
}

/**
 * Reads a JSON body (an object or an array, up to `limit`) into `ctx.request.body`. Keys named `__proto__` are
 * dropped like any unknown field, never refused: once parsed they cannot reach a prototype.
 */
export function jsonBody(limit: string): Middleware {
  return async (ctx, next) => {
    if (WITH_BODY.has(ctx.method) && ctx.request.body === undefined && ctx.is('json')) {
      const { upload } = ctx.state;
      // A body cut before it was read would never end: the reader would wait forever.
      if (upload?.cut) throw Upload.error(upload.cut);
      const { parsed, raw } = await coBody
        .json(ctx, { limit, strict: true, returnRawBody: true, onProtoPoisoning: 'remove' })
        .catch((error: { type?: string; received?: number }) => {
          // The parser counts what it read (not a listener of ours: one would keep a refused body from being drained).
          if (typeof error.received === 'number') upload?.took(error.received);
          if (error.type === 'entity.too.large') upload?.capped();
          if (error.type === 'request.aborted') throw Upload.error(upload?.cut ?? 'aborted');
          throw error;
        });
      ctx.request.body = parsed;
      ctx.request.rawBody = raw;
    }
    return next();
  };
}
