import { MikroORM, defineConfig, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { DatabaseConfig } from './config.ts';
import { giveBackLostConnections } from './lost-connections.ts';
import { ENTITIES, TENANT_ENTITIES } from './entities.ts';
import { MIGRATIONS } from './migrations/index.ts';

export type Orm = MikroORM;
export type { EntityManager };

export const TENANT_FILTER = 'tenant';
/** Either one company, or, for operator and cross-company work, explicitly all of them. */
type TenantScope = { companyId: string } | { allCompanies: true };

export function ormConfig(db: DatabaseConfig, overrides: Partial<Options> = {}) {
  return defineConfig({
    clientUrl: withStatementTimeout(db.url, db.statementTimeoutMs),
    entities: ENTITIES,
    extensions: [Migrator],
    pool: { min: Math.min(db.poolMin ?? 0, db.poolMax), max: db.poolMax },
    debug: db.debug,
    // Every company-owned entity is scoped to the company of the request; forgetting to set it is an error.
    filters: {
      [TENANT_FILTER]: {
        name: TENANT_FILTER,
        cond: (args: TenantScope) => ('companyId' in args ? { company: args.companyId } : {}),
        entity: TENANT_ENTITIES,
        default: true,
      },
    },
    migrations: {
      migrationsList: MIGRATIONS,
      path: 'db/migrations',
      snapshot: false,
      transactional: true,
      silent: true,
    },
    ignoreUndefinedInQuery: true,
    forceUtcTimezone: true,
    serialization: { forceObject: true },
    driverOptions: { onPoolCreated: giveBackLostConnections, connectionTimeoutMillis: db.connectTimeoutMs },
    ...overrides,
  });
}

/** Connects to PostgreSQL; one ORM per process, a forked EntityManager per request or activity. */
/** `overrides` is for tests (e.g. a query-counting logger). */
export async function initORM(db: DatabaseConfig, overrides: Partial<Options> = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(db, overrides));
}

/** A fresh EntityManager scoped to one company. */
export function companyEm(orm: Orm, companyId: string): EntityManager {
  const em = orm.em.fork();
  em.setFilterParams(TENANT_FILTER, { companyId } satisfies TenantScope);
  return em;
}

/** A fresh EntityManager for operator and cross-company work (company creation, API key lookup). */
export function systemEm(orm: Orm): EntityManager {
  const em = orm.em.fork();
  em.setFilterParams(TENANT_FILTER, { allCompanies: true } satisfies TenantScope);
  return em;
}

/** Bounds every statement server-side, so that no request waits on the database forever. */
function withStatementTimeout(url: string, timeoutMs: number): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('options'))
    parsed.searchParams.set('options', `-c statement_timeout=${Math.trunc(timeoutMs)}`);
  return parsed.toString();
}
