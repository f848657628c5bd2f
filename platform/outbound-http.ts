import type { LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import type { ResolvedAddress } from './outbound-policy.ts';

/** An HTTP client bound to addresses already judged: it never resolves the host again, so DNS cannot rebind it. */
export interface PinnedClient {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Connects only to `addresses` (those the policy checked for this host), whatever a resolver would say now; TLS is
 * still verified against the URL's host name. One client per attempt: each attempt resolves and judges afresh.
 */
export function pinnedClient(addresses: readonly ResolvedAddress[]): PinnedClient {
  const lookup: LookupFunction = (_hostname, options, callback) => {
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
  const agent = new Agent({ connect: { lookup } });
  return {
    fetch: (url, init = {}) => fetch(url, { ...init, dispatcher: agent }),
    close: () => agent.close(),
  };
}
