import type { LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import type { ResolvedAddress } from './outbound-policy.ts';

/**
 * Fetches `url` connecting only to `addresses` (those the policy checked for its host just now), whatever a resolver
 * would say: DNS cannot rebind it. TLS is still verified against the URL's host name. Each attempt resolves and judges
 * afresh; the connections to one set of checked addresses are kept and reused, so that a receiver taking many
 * deliveries is not dialled (and, over https, handshaken) once per delivery.
 */
export function pinnedFetch(
  addresses: readonly ResolvedAddress[],
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(url, { ...init, dispatcher: agentFor(addresses) });
}

/** Agents by the addresses they are bound to; the least recently used is closed past the bound. */
const agents = new Map<string, Agent>();
const MAX_AGENTS = 64;

function agentFor(addresses: readonly ResolvedAddress[]): Agent {
  const key = addresses
    .map(({ family, address }) => `${family}/${address}`)
    .sort()
    .join(',');
  const known = agents.get(key);
  if (known) {
    agents.delete(key);
    agents.set(key, known);
    return known;
  }
  const agent = new Agent({ connect: { lookup: pinnedLookup(addresses) } });
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldest, evicted] = agents.entries().next().value!;
    agents.delete(oldest);
    void evicted.close();
  }
  return agent;
}

function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6
        ? addresses.filter(({ family }) => family === options.family)
        : addresses;
    if (wanted.length === 0)
      return callback(
        Object.assign(new Error('No checked address of the family asked for'), { code: 'ENOTFOUND' }),
        '',
        0,
      );
    if (options.all) return (callback as unknown as (error: null, all: ResolvedAddress[]) => void)(null, [...wanted]);
    callback(null, wanted[0]!.address, wanted[0]!.family);
  };
}
