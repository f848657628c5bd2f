import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

// `npm start` runs its parts with dev/supervisor.ts: when one ends, or the launcher itself fails, the others stop and
// the launcher exits 1. Shown on a launcher built the same way (test/helpers/supervised-launcher.ts).
const LAUNCHER = new URL('../../helpers/supervised-launcher.ts', import.meta.url).pathname;

type Pids = Record<'database' | 'worker' | 'api', number>;

async function launch(...args: string[]) {
  const launcher = spawn(process.execPath, [LAUNCHER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  const reader = createInterface({ input: launcher.stdout });
  const pids = await new Promise<Pids>((resolve, reject) => {
    reader.on('line', (line) => {
      lines.push(line);
      if (line.startsWith('{')) resolve(JSON.parse(line) as Pids);
    });
    launcher.once('exit', () => reject(new Error(`the launcher exited early: ${lines.join('\n')}`)));
  });
  return { launcher, pids, lines, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the supervisor of `npm start`', () => {
  it('stops every other part and exits 1 when a child it spawned dies', async () => {
    const { pids, lines, exited } = await launch();
    process.kill(pids.worker, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(lines).toContain('✗ worker exited (SIGKILL): stopping everything');
    expect(lines).toContain('simulators stopped');
    expect(Object.values(pids).filter(alive)).toEqual([]);
  });

  it('stops every other part when a part it adopted (the database) dies on its own', async () => {
    const { pids, lines, exited } = await launch();
    process.kill(pids.database, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(lines).toContain('✗ database exited (SIGKILL): stopping everything');
    expect(Object.values(pids).filter(alive)).toEqual([]);
  });

  it('stops every part when the launcher itself fails, instead of leaving them running', async () => {
    const { pids, lines, exited } = await launch('--crash');
    expect(await exited).toBe(1);
    expect(lines.join('\n')).toContain(
      '✗ the launcher failed: Error: a simulator failed on a request it did not expect',
    );
    expect(lines).toContain('simulators stopped');
    expect(Object.values(pids).filter(alive)).toEqual([]);
  });

  it('stops every part on SIGTERM and exits 0', async () => {
    const { launcher, pids, lines, exited } = await launch();
    launcher.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines).toContain('• stopped');
    expect(Object.values(pids).filter(alive)).toEqual([]);
  });
});
