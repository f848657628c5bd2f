import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { companyEm } from '../db/orm.ts';
import type { AppDeps } from './deps.ts';
import { ApiError, UNSTORABLE_TEXT, validationError } from './errors.ts';
import { authenticate, authorize } from './middleware/auth.ts';
import { idempotent } from './middleware/idempotency.ts';
import { readMultipart } from './multipart.ts';
import { answerOf } from './refusals.ts';
import type { RateLimiter } from './middleware/rate-limit.ts';
import { Reply, type AnyRoute, type Caller, type RouteRequest } from './route.ts';
import { unstorableTextPaths } from './schemas/common.ts';

/** Mounts declared routes on a router: authenticate, limit, authorise, validate, run, check the response. */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], deps: AppDeps, limiter?: RateLimiter): void {
  for (const route of routes) {
    router[route.method](route.path, async (ctx: Context) => {
      ctx.state.routePath = `${router.opts.prefix ?? ''}${route.path}`;
      const caller = route.auth === 'none' ? undefined : await authenticate(ctx, deps.orm, route.auth);
      if (caller) {
        limiter?.take(caller.apiKeyId);
        authorize(caller, route.scope, route.feature);
      }
      const form =
        route.multipart && ctx.is('multipart/form-data') ? await readMultipart(ctx, route.multipart.limits) : undefined;
      const execute = async (): Promise<Reply> => {
        const params = parse(route.params, ctx.params);
        const query = parse(route.query, ctx.query);
        const body = form ? undefined : parse(route.body, ctx.request.body);
        const request: RouteRequest<unknown, unknown, unknown> = {
          params,
          query,
          body,
          form,
          caller: caller as Caller,
          em: caller ? companyEm(deps.orm, caller.company.id) : (undefined as never),
          deps,
          ctx,
        };
        const result = await route.handler(request).catch((error: unknown) => {
          throw answerOf(error, route.errors);
        });
        const reply = result instanceof Reply ? result : new Reply(route.status ?? 200, result);
        if (deps.config.validateResponses) checkResponse(route, reply);
        return reply;
      };
      const reply = caller ? await idempotent(ctx, deps.orm, caller, form, execute) : await execute();
      ctx.status = reply.status;
      if (reply.body !== undefined) ctx.body = reply.body;
    });
  }
}

function parse(schema: z.ZodType | undefined, input: unknown): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(input ?? {});
  if (!result.success) throw validationError(fieldErrors(result.error));
  // Checked on what the route uses: unknown fields were dropped by the schema, so they may carry anything.
  const [unstorable] = unstorableTextPaths(result.data);
  if (unstorable) throw validationError({ [unstorable.length ? unstorable.join('.') : 'body']: [UNSTORABLE_TEXT] });
  return result.data;
}

/** zod issues as the spec's `details`: a field path mapped to its messages. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    (details[field] ??= []).push(issue.message);
  }
  return details;
}

/** Outside production a response that breaks its own schema is a bug: fail loudly instead of drifting from the docs. */
function checkResponse(route: AnyRoute, reply: Reply): void {
  const schema =
    reply.status === (route.status ?? 200)
      ? route.response
      : route.alternatives?.find((a) => a.status === reply.status)?.schema;
  if (!schema) return;
  const result = (schema as z.ZodType).safeParse(reply.body);
  if (!result.success) {
    throw new ApiError(
      500,
      'response_schema_violation',
      `${route.operationId} answered outside its schema: ${z.prettifyError(result.error)}`,
    );
  }
}
