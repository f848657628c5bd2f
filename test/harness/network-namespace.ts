import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * A network namespace of the suite's own, joined to this machine by a veth pair on a private /24: programs started in
 * it listen on a real, non-loopback address that the product reaches over the veth link, as it reaches other hosts.
 */
export interface NetworkNamespace {
  name: string;
  /** The namespace's address, where its programs listen (e.g. 10.201.37.2). */
  address: string;
  /** This machine's end of the link (e.g. 10.201.37.1). */
  hostAddress: string;
  /** The /24 both ends are in, as an operator would allowlist it. */
  network: string;
  /** Runs a program inside the namespace. */
  spawn(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** Removes the namespace and its link; safe to call twice. */
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** Namespaces this suite made, named after the process that made it: ones whose process is gone are left-overs. */
const PREFIX = 'ap-prod-';

function removeLeftOvers(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const name = line.split(' ')[0] ?? '';
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length));
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (!alive) removeNamespace(name, `apv${pid}h`);
  }
}

function removeNamespace(name: string, hostLink: string): void {
  try {
    ip('link', 'delete', hostLink);
  } catch {
    // gone with the namespace already
  }
  try {
    ip('netns', 'delete', name);
  } catch {
    // already removed
  }
}

/** A /24 under 10.201.0.0/16 that no interface of this machine uses yet. */
function freeSubnet(): number {
  const used = ip('-4', '-o', 'addr', 'show');
  for (let attempt = 0; attempt < 250; attempt++) {
    const octet = 2 + ((process.pid + attempt) % 250);
    if (!used.includes(`10.201.${octet}.`)) return octet;
  }
  throw new Error('No free /24 under 10.201.0.0/16 for the suite’s network namespace');
}

/** Creates the namespace (needs root: `ip netns`). */
export function createNetworkNamespace(): NetworkNamespace {
  if (process.getuid?.() !== 0)
    throw new Error('The production-shape suite creates a network namespace, which needs root (ip netns)');
  removeLeftOvers();
  const name = `${PREFIX}${process.pid}`;
  const hostLink = `apv${process.pid}h`;
  const innerLink = `apv${process.pid}n`;
  const octet = freeSubnet();
  const hostAddress = `10.201.${octet}.1`;
  const address = `10.201.${octet}.2`;
  try {
    ip('netns', 'add', name);
    ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', innerLink);
    ip('link', 'set', innerLink, 'netns', name);
    ip('addr', 'add', `${hostAddress}/24`, 'dev', hostLink);
    ip('link', 'set', hostLink, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${address}/24`, 'dev', innerLink);
    ip('netns', 'exec', name, 'ip', 'link', 'set', innerLink, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    removeNamespace(name, hostLink);
    throw error;
  }
  let removed = false;
  return {
    name,
    address,
    hostAddress,
    network: `10.201.${octet}.0/24`,
    spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
    remove() {
      if (removed) return;
      removed = true;
      removeNamespace(name, hostLink);
    },
  };
}
