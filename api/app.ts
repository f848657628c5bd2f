import Router from '@koa/router';
import Koa from 'koa';
import packageJson from '../package.json' with { type: 'json' };
import type { AppDeps } from './deps.ts';
import { ApiError } from './errors.ts';
import { errorHandler } from './middleware/errors.ts';
import { jsonBody } from './middleware/json-body.ts';
import { rateLimiter } from './middleware/rate-limit.ts';
import { requestContext } from './middleware/request-context.ts';
import { traceRequests } from './middleware/trace-requests.ts';
import { watchUploads } from './middleware/uploads.ts';
import { mountRoutes } from './router.ts';
import { mountAssets } from './routes/assets.ts';
import { mountDocs } from './routes/docs.ts';
import { mountFiles } from './routes/files.ts';
import { mountHealth } from './routes/health.ts';
import { ERP_PREFIX, PUBLIC_PREFIX, ROUTE_GROUPS } from './routes/index.ts';
import { buildOpenApiDocument } from './schemas/openapi.ts';

/** Builds the Koa application without listening; the middleware order lives here and only here. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: process.env.TRUST_PROXY === 'true' });
  app.silent = true;

  app.use(requestContext(deps.logger, deps.metrics));
  if (deps.tracer) app.use(traceRequests(deps.tracer));
  app.use(watchUploads());
  app.use(errorHandler());
  app.use(routeNotFound);
  const publicBody = jsonBody(deps.config.jsonBodyLimit);
  const erpBody = jsonBody(deps.config.erpJsonBodyLimit);
  app.use((ctx, next) => (ctx.path.startsWith(ERP_PREFIX) ? erpBody(ctx, next) : publicBody(ctx, next)));

  const root = new Router();
  mountHealth(root, deps);
  if (deps.metrics && deps.config.metricsOnApiPort) {
    const { registry } = deps.metrics;
    root.get('/metrics', async (ctx) => {
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    });
  }
  mountAssets(root);
  app.use(root.routes());

  const limiter = deps.config.rateLimit ? rateLimiter(deps.config.rateLimit) : undefined;
  let openApi: unknown;
  // Paths carry their full prefix (/public/api/v1, /api/v1/erp), so the server is the host itself.
  const documentation = () =>
    (openApi ??= buildOpenApiDocument(ROUTE_GROUPS, {
      serverUrl: deps.config.publicUrl,
      release: packageJson.version,
    }));
  for (const group of ROUTE_GROUPS) {
    const router = new Router({ prefix: group.prefix });
    if (group.prefix === PUBLIC_PREFIX) {
      mountDocs(router, documentation);
      mountFiles(router, deps, limiter);
    }
    mountRoutes(router, group.routes, deps, limiter);
    app.use(router.routes()).use(router.allowedMethods());
  }

  return app;
}

/**
 * Whatever no router answered is an unknown endpoint; a known path asked with another method is 405 with `Allow`
 * (the routers' answer, given the flat error body).
 */
const routeNotFound: Koa.Middleware = async (ctx, next) => {
  await next();
  if (ctx.body != null) return;
  if (ctx.status === 404) throw new ApiError(404, 'route_not_found', 'No such endpoint');
  if (ctx.status === 405 || ctx.status === 501) {
    const allow = ctx.response.get('Allow');
    throw new ApiError(405, 'method_not_allowed', 'This endpoint does not accept this method', {
      headers: allow ? { allow } : {},
    });
  }
};
