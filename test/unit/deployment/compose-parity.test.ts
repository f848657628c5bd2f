// docker-compose.yml deploys what `npm run test:production` runs: the same Temporal server release, the same deploy/
// scripts with the same variables, and the same variables on the API and the worker.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TEMPORAL_CLI_VERSION } from '../../../dev/temporal.ts';
import { SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes.ts';
import { WORKER_ENVIRONMENT } from '../../../worker/node-flags.ts';
import { POSTGRES_INIT_VARIABLES, PRODUCT_VARIABLES } from '../../harness/production-stack.ts';
import {
  SCHEMA_VARIABLES,
  SETUP_VARIABLES,
  SHARED_SERVER_VARIABLES,
  TEMPORAL_SERVER_VERSION,
} from '../../harness/temporal-server.ts';

interface Service {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  entrypoint?: string[];
}

const compose = parse(readFileSync(new URL('../../../docker-compose.yml', import.meta.url), 'utf8'), {
  merge: true,
}) as { services: Record<string, Service> };
const service = (name: string) => compose.services[name]!;
const names = (environment: Record<string, string> | undefined) => Object.keys(environment ?? {}).sort();
/** What compose sets for the product beyond the suite: files live in a volume unless an S3 bucket is given. */
const COMPOSE_ONLY = ['STORAGE_DIR'];

describe('docker-compose.yml and the production-shape suite', () => {
  it('run the same Temporal server release, and admin tools of that release with the CLI the suite builds', () => {
    expect(service('temporal').image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    for (const name of ['temporal-schema', 'temporal-setup']) {
      expect(service(name).image).toMatch(
        new RegExp(
          `^temporalio/admin-tools:${TEMPORAL_SERVER_VERSION.replaceAll('.', '\\.')}-.*-cli-${TEMPORAL_CLI_VERSION.slice(1).replaceAll('.', '\\.')}$`,
        ),
      );
    }
  });

  it('configure the server through the same variables of its config template', () => {
    expect(names(service('temporal').environment)).toEqual([...SHARED_SERVER_VARIABLES].sort());
    const dynamicConfig = service('temporal').volumes!.find((volume) =>
      volume.startsWith('./deploy/temporal-dynamic-config.yaml:'),
    );
    expect(dynamicConfig?.split(':')[1]).toBe(service('temporal').environment!.DYNAMIC_CONFIG_FILE_PATH);
  });

  it('set up PostgreSQL and Temporal with the same deploy scripts and variables', () => {
    const runs = (name: string, script: string) => {
      const mounted = service(name)
        .volumes!.find((volume) => volume.startsWith(`./deploy/${script}:`))!
        .split(':')[1];
      return name === 'postgres'
        ? mounted?.startsWith('/docker-entrypoint-initdb.d/')
        : service(name).entrypoint?.includes(mounted!);
    };
    expect(runs('postgres', 'postgres-init.sh')).toBe(true);
    expect(runs('temporal-schema', 'temporal-schema.sh')).toBe(true);
    expect(runs('temporal-setup', 'temporal-setup.sh')).toBe(true);
    expect(names(service('postgres').environment).filter((name) => !name.startsWith('POSTGRES_'))).toEqual(
      [...POSTGRES_INIT_VARIABLES].sort(),
    );
    expect(names(service('temporal-schema').environment)).toEqual([...SCHEMA_VARIABLES].sort());
    expect(names(service('temporal-setup').environment)).toEqual([...SETUP_VARIABLES].sort());
  });

  it('give the API and the worker the variables the suite gives them', () => {
    const processSettings = Object.keys(WORKER_ENVIRONMENT);
    const product = new Set(
      [...names(service('api').environment), ...names(service('worker').environment)].filter(
        (name) => !processSettings.includes(name),
      ),
    );
    expect([...product].sort()).toEqual([...PRODUCT_VARIABLES, ...COMPOSE_ONLY].sort());
    expect(names(service('migrate').environment)).toEqual(
      names(service('api').environment).filter((name) => !['HOST', 'PORT'].includes(name)),
    );
  });

  it('register the search attributes the workflows set', () => {
    const script = readFileSync(new URL('../../../deploy/temporal-setup.sh', import.meta.url), 'utf8');
    const listed = /for attribute in ([A-Za-z: ]+); do/.exec(script)![1]!.trim().split(/\s+/);
    const types: Record<string, string> = { KEYWORD: 'Keyword', DATETIME: 'Datetime' };
    expect(listed.sort()).toEqual(
      SEARCH_ATTRIBUTES.map((attribute) => `${attribute.name}:${types[attribute.type]}`).sort(),
    );
  });
});
