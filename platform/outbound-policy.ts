import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { classifyAddress } from './special-addresses.ts';

/**
 * Where the product may send requests on a company's behalf (webhook receivers) and which links it accepts (notes'
 * files): the public internet, plus the networks the operator names. One policy, read once at start.
 */
export interface OutboundPolicy {
  /** Networks allowed beyond the public internet (an ERP behind a VPN). */
  allowedNetworks: readonly AllowedNetwork[];
  /** Development only: webhook receivers on loopback, over http too (the simulators, an ERP on the laptop). */
  loopbackReceivers: boolean;
}

export interface AllowedNetwork {
  cidr: string;
  range: [ipaddr.IPv4 | ipaddr.IPv6, number];
}

export const ALLOWED_NETWORKS_VARIABLE = 'OUTBOUND_ALLOWED_NETWORKS';

/** `OUTBOUND_ALLOWED_NETWORKS=10.20.0.0/16,fd00:1::/64`; loopback receivers outside production. */
export function outboundPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  const allowedNetworks = (env[ALLOWED_NETWORKS_VARIABLE] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((cidr) => {
      if (!ipaddr.isValidCIDR(cidr))
        throw new Error(
          `${ALLOWED_NETWORKS_VARIABLE}: "${cidr}" is not a network in CIDR form (e.g. 10.20.0.0/16, fd00:1::/64)`,
        );
      return { cidr, range: ipaddr.parseCIDR(cidr) };
    });
  return { allowedNetworks, loopbackReceivers: env.NODE_ENV !== 'production' };
}

/** One address as a connection resolves it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How host names become addresses: the system resolver unless a test gives another. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

const RESOLVE_TIMEOUT_MS = 5_000;

export const systemResolve: Resolve = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('no answer in time'), { code: 'ETIMEOUT' })),
      RESOLVE_TIMEOUT_MS,
    );
  });
  try {
    const answers = await Promise.race([lookup(hostname, { all: true, order: 'verbatim' }), timeout]);
    return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
};

/** What a host is to the policy: its addresses, all allowed; refused, with the rule that refuses it; or not resolvable now. */
export type HostVerdict = { addresses: ResolvedAddress[] } | { refusal: string } | { unresolved: string };

export interface JudgeOptions {
  /** Loopback counts as allowed (development receivers). */
  loopback?: boolean;
  resolve?: Resolve;
}

/** Why the product may not reach `address`, naming the rule; null when it may. */
export function addressRefusal(
  address: string,
  policy: OutboundPolicy,
  options: Pick<JudgeOptions, 'loopback'> = {},
): string | null {
  const classified = classifyAddress(address);
  if (classified.reachable) return null;
  const judged = ipaddr.parse(classified.address);
  if (policy.allowedNetworks.some(({ range }) => judged.kind() === range[0].kind() && judged.match(range))) return null;
  if (options.loopback && classified.name === 'loopback') return null;
  const where = `${classified.address} is in ${classified.network} (${classified.name})`;
  const said = classified.carriedBy
    ? `${classified.carriedBy} carries ${classified.address}, which is in ${classified.network} (${classified.name})`
    : where;
  return `${said}; allow it with ${ALLOWED_NETWORKS_VARIABLE}`;
}

const LOCALHOST = /(^|\.)localhost$/i;

/**
 * Judges a URL's host (as `URL.hostname` gives it): IP literals directly, names by every address they resolve to.
 * `localhost` names and single-label names (resolved through local search domains) are refused as written.
 */
export async function judgeHost(
  hostname: string,
  policy: OutboundPolicy,
  options: JudgeOptions = {},
): Promise<HostVerdict> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  if (family) {
    const refusal = addressRefusal(host, policy, options);
    return refusal ? { refusal } : { addresses: [{ address: host, family: family === 6 ? 6 : 4 }] };
  }
  const name = host.replace(/\.$/, '');
  if (LOCALHOST.test(name) && !options.loopback) return { refusal: `${host} always names this machine (loopback)` };
  if (!name.includes('.') && !LOCALHOST.test(name))
    return {
      refusal: `${host} is a single-label name, which resolves through local search domains; use a fully qualified name`,
    };
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? systemResolve)(name);
  } catch (error) {
    return {
      unresolved: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    };
  }
  if (addresses.length === 0) return { unresolved: `${host} does not resolve (no addresses)` };
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy, options);
    if (refusal) return { refusal: `${host} resolves to ${refusal}` };
  }
  return { addresses };
}

/**
 * A link people follow (a note's file): http or https at a public or allowed address. The product never fetches it,
 * so a name that does not resolve now is accepted; one that resolves to a refused address is not.
 */
export async function linkRefusal(url: URL, policy: OutboundPolicy, resolve?: Resolve): Promise<string | null> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an http or https URL';
  const verdict = await judgeHost(url.hostname, policy, resolve ? { resolve } : {});
  return 'refusal' in verdict ? verdict.refusal : null;
}

/**
 * A webhook receiver: https at a public or allowed address; in development, http or https on loopback too. Judged when
 * it is registered and again, resolved afresh, before every delivery attempt.
 */
export async function judgeReceiver(url: URL, policy: OutboundPolicy, resolve?: Resolve): Promise<HostVerdict> {
  const loopback = policy.loopbackReceivers;
  if (url.protocol !== 'https:' && !(loopback && url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return {
      refusal: loopback
        ? 'The URL must use https (http is accepted only for loopback receivers in development)'
        : 'The URL must use https',
    };
  }
  return judgeHost(url.hostname, policy, { loopback, ...(resolve ? { resolve } : {}) });
}

/** Loopback by name or literal: `localhost`, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (LOCALHOST.test(host)) return true;
  if (!isIP(host)) return false;
  const classified = classifyAddress(host);
  return !classified.reachable && classified.name === 'loopback';
}
