import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_NODE_FLAGS } from '../../api/node-flags.ts';
import { WORKER_ENVIRONMENT, WORKER_NODE_FLAGS } from '../../worker/node-flags.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const processes = [
  { name: 'api', script: 'api/main.ts', flags: API_NODE_FLAGS, environment: {} },
  { name: 'worker', script: 'worker/main.ts', flags: WORKER_NODE_FLAGS, environment: WORKER_ENVIRONMENT },
] as const;

describe('the heap limits and the environment of the API and the worker', () => {
  it.each(processes)(
    'are on every command that starts the $name outside TypeScript',
    ({ name, script, flags, environment }) => {
      const command = [...Object.entries(environment).map(([key, value]) => `${key}=${value}`), 'node', ...flags];
      const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
      expect(scripts[name]).toBe([...command, script].join(' '));
      const compose = parse(read('docker-compose.yml'), { merge: true }) as {
        services: Record<string, { command: string[]; environment: Record<string, string> }>;
      };
      expect(compose.services[name]!.command).toEqual(['node', ...flags, script]);
      expect(compose.services[name]!.environment).toMatchObject(environment);
      expect(read('docs/operations.md')).toContain(`\`${[...command, script].join(' ')}\``);
    },
  );

  it('start the API by default in the image', () => {
    expect(read('Dockerfile')).toContain(
      `CMD ${JSON.stringify(['node', ...API_NODE_FLAGS, 'api/main.ts']).replaceAll(',', ', ')}`,
    );
  });

  it('are options this Node accepts', () => {
    for (const flag of [...API_NODE_FLAGS, ...WORKER_NODE_FLAGS])
      expect(process.allowedNodeEnvironmentFlags.has(flag.split('=')[0]!)).toBe(true);
  });
});
