import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the embedded default keeps its state: PostgreSQL, Temporal and what the running product advertises. */
export const DATA_DIR = process.env.AP_DATA_DIR ?? join(process.cwd(), '.data');

/** What a running `npm start` advertises, so that the operator CLI finds the same services. */
export interface RuntimeInfo {
  databaseUrl: string;
  temporalAddress: string;
  apiUrl: string;
  temporalUiUrl: string | null;
  pid: number;
}

const runtimeFile = () => join(DATA_DIR, 'runtime.json');

export function writeRuntime(info: RuntimeInfo): void {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(runtimeFile(), `${JSON.stringify(info, null, 2)}\n`);
}

export function readRuntime(): RuntimeInfo | null {
  if (!existsSync(runtimeFile())) return null;
  const info = JSON.parse(readFileSync(runtimeFile(), 'utf8')) as RuntimeInfo;
  return isAlive(info.pid) ? info : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
