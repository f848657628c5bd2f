import type Router from '@koa/router';
import { authenticate, authorize } from '../middleware/auth.ts';
import type { RateLimiter } from '../middleware/rate-limit.ts';
import type { AppDeps } from '../deps.ts';
import { Refusal } from '../../platform/refusal.ts';
import { serviceUnavailable } from '../errors.ts';

/** The one route served outside the route table (its answers are files, not JSON): the tenant and scope walks name it. */
export const FILES_ROUTE = { method: 'get', path: '/files/*key' } as const;

/**
 * Stored files (documents' XML, notes' attachments), served to the company that owns them and to no one else. They
 * belong to documents, which no scope covers: scoped keys are refused, as on the documents' own routes.
 */
export function mountFiles(router: Router, deps: AppDeps, limiter?: RateLimiter): void {
  router.get(FILES_ROUTE.path, async (ctx) => {
    ctx.state.routePath = '/public/api/v1/files/{key}';
    const caller = await authenticate(ctx, deps.orm, 'api-key');
    limiter?.take(caller.apiKeyId);
    authorize(caller, undefined, undefined);
    const key = ctx.params.key ?? '';
    const owned = key.startsWith(`${caller.company.id}/`) && !key.includes('..');
    const file = owned
      ? await deps.storage.get(key).catch((error: unknown) => {
          ctx.state.log.error({ err: error }, 'file storage failed');
          throw serviceUnavailable('file storage');
        })
      : null;
    if (!file) throw new Refusal('file_not_found', 'File not found');
    ctx.type = file.contentType;
    ctx.set('content-disposition', `inline; filename="${key.split('/').pop()}"`);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.body = Buffer.from(file.body);
  });
}
