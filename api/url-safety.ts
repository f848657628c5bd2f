import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses that are not the public internet: loopback, private, link-local, CGNAT, unspecified, multicast. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Whether a URL's host may be public: IP literals and `localhost` are checked directly, names through DNS.
 * A name that does not resolve (now) is not refused: the API never fetches these URLs itself.
 */
export async function pointsOutsidePublicInternet(url: URL, timeoutMs = 1_000): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return !isPublicAddress(host);
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return true;
  const resolved = await Promise.race([
    lookup(host, { all: true, verbatim: true }).catch(() => []),
    new Promise<[]>((resolve) => setTimeout(() => resolve([]), timeoutMs).unref()),
  ]);
  return resolved.some(({ address }) => !isPublicAddress(address));
}
