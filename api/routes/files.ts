import type Router from '@koa/router';
import { authenticate } from '../middleware/auth.ts';
import type { AppDeps } from '../deps.ts';
import { notFound, serviceUnavailable } from '../errors.ts';

/** Stored files (documents' XML, notes' attachments), served to the company that owns them and to no one else. */
export function mountFiles(router: Router, deps: AppDeps): void {
  router.get('/files/*key', async (ctx) => {
    ctx.state.routePath = '/public/api/v1/files/{key}';
    const caller = await authenticate(ctx, deps.orm, 'api-key');
    const key = ctx.params.key ?? '';
    const owned = key.startsWith(`${caller.company.id}/`) && !key.includes('..');
    const file = owned
      ? await deps.storage.get(key).catch((error: unknown) => {
          ctx.state.log.error({ err: error }, 'file storage failed');
          throw serviceUnavailable('file storage');
        })
      : null;
    if (!file) throw notFound('file_not_found', 'File not found');
    ctx.type = file.contentType;
    ctx.set('content-disposition', `inline; filename="${key.split('/').pop()}"`);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.body = Buffer.from(file.body);
  });
}
