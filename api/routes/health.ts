import type Router from '@koa/router';
import type { AppDeps } from '../deps.ts';

type Check = 'up' | 'down';

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(probe: () => Promise<unknown>, ms: number): Promise<Check> {
  try {
    await within(probe(), ms);
    return 'up';
  } catch {
    return 'down';
  }
}

/** `/healthz`: the process answers. `/readyz`: PostgreSQL and Temporal answer too; 503 names what is down. */
export function mountHealth(router: Router, deps: AppDeps, timeoutMs = 2_000): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [database, temporal] = await Promise.all([
      check(() => deps.orm.em.getConnection().execute('select 1'), timeoutMs),
      check(() => deps.temporal.client.workflowService.getSystemInfo({}), timeoutMs),
    ]);
    const ready = database === 'up' && temporal === 'up';
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'unavailable', checks: { database, temporal } };
  });
}
