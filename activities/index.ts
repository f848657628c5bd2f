import type { Logger } from 'pino';
import type { Orm } from '../db/orm.ts';

/** What activities are built from: injected, so tests and processes wire them their own way. */
export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
}

/** Every activity of the product, built over its dependencies and registered on the worker. */
export function createActivities(deps: ActivityDeps) {
  void deps;
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
