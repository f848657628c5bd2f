// A launcher built as `npm start` is, for the supervisor's tests: two children it spawns, a database started elsewhere
// (its own child process, adopted with the way to stop it) and simulators inside the launcher. It prints the pids of
// its processes, then waits; with `--crash`, a simulator inside it throws, as the DIAN simulator's reset once did.
import { spawn } from 'node:child_process';
import { createSupervisor, stopOnLauncherFailure } from '../../dev/supervisor.ts';

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const supervisor = createSupervisor({ say, graceMs: 2_000 });
stopOnLauncherFailure(supervisor, say);

const idle = ['-e', 'setInterval(() => {}, 1_000)'];
const database = spawn(process.execPath, idle, { stdio: 'ignore', detached: true });
const adopted = supervisor.adopt(
  'database',
  () =>
    new Promise<void>((resolve) => {
      if (database.exitCode !== null || database.signalCode !== null) return resolve();
      database.once('exit', () => resolve());
      database.kill('SIGTERM');
    }),
);
database.once('exit', (code, signal) => adopted.exited(signal ?? String(code)));
supervisor.adopt('simulators', async () => say('simulators stopped'));
const worker = supervisor.spawn('worker', process.execPath, idle);
const api = supervisor.spawn('api', process.execPath, idle);

say(JSON.stringify({ database: database.pid, worker: worker.pid, api: api.pid }));
if (process.argv.includes('--crash'))
  setTimeout(() => {
    throw new Error('a simulator failed on a request it did not expect');
  }, 200);
