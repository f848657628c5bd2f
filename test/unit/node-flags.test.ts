import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_NODE_FLAGS } from '../../api/node-flags.ts';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const processes = [
  { name: 'api', script: 'api/main.ts', flags: API_NODE_FLAGS },
  { name: 'worker', script: 'worker/main.ts', flags: WORKER_NODE_FLAGS },
] as const;

describe('the heap limits of the API and the worker', () => {
  it.each(processes)('are on every command that starts the $name outside TypeScript', ({ name, script, flags }) => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts[name]).toBe(`node ${[...flags, script].join(' ')}`);
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { command: string[] }>;
    };
    expect(compose.services[name]!.command).toEqual(['node', ...flags, script]);
    expect(read('docs/operations.md')).toContain(`\`node ${[...flags, script].join(' ')}\``);
  });

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
