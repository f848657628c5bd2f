import ipaddr from 'ipaddr.js';

/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries, as far as they matter to a request leaving the product:
 * every block whose "Globally Reachable" is false, and the few exceptions inside them that are reachable. Blocks that
 * carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by the address they carry.
 * https://www.iana.org/assignments/iana-ipv4-special-registry and .../iana-ipv6-special-registry
 */

type Kind = 'refused' | 'reachable' | 'carries-ipv4';

interface Block {
  network: string;
  prefix: number;
  name: string;
  kind: Kind;
  /** For `carries-ipv4`: which 16-bit groups hold the IPv4 address. */
  ipv4At?: [number, number];
}

const block = (cidr: string, name: string, kind: Kind = 'refused', ipv4At?: [number, number]): Block => {
  const [network, prefix] = cidr.split('/') as [string, string];
  return { network, prefix: Number(prefix), name, kind, ...(ipv4At ? { ipv4At } : {}) };
};

const IPV4_BLOCKS: Block[] = [
  block('0.0.0.0/8', '"this network"'),
  block('10.0.0.0/8', 'private'),
  block('100.64.0.0/10', 'shared address space'),
  block('127.0.0.0/8', 'loopback'),
  block('169.254.0.0/16', 'link-local'),
  block('172.16.0.0/12', 'private'),
  // Inside 192.0.0.0/24, two anycast services are reachable.
  block('192.0.0.9/32', 'Port Control Protocol anycast', 'reachable'),
  block('192.0.0.10/32', 'TURN anycast', 'reachable'),
  block('192.0.0.0/24', 'IETF protocol assignments'),
  block('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  block('192.168.0.0/16', 'private'),
  block('198.18.0.0/15', 'benchmarking'),
  block('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  block('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  block('224.0.0.0/4', 'multicast'),
  block('255.255.255.255/32', 'limited broadcast'),
  block('240.0.0.0/4', 'reserved'),
];

const IPV6_BLOCKS: Block[] = [
  block('::/128', 'unspecified'),
  block('::1/128', 'loopback'),
  block('::ffff:0:0/96', 'IPv4-mapped', 'carries-ipv4', [6, 7]),
  block('::/96', 'IPv4-compatible', 'carries-ipv4', [6, 7]),
  block('64:ff9b::/96', 'NAT64', 'carries-ipv4', [6, 7]),
  block('64:ff9b:1::/48', 'local-use NAT64', 'carries-ipv4', [6, 7]),
  block('100::/64', 'discard-only'),
  block('100:0:0:1::/64', 'dummy prefix'),
  // Inside 2001::/23, these services are reachable.
  block('2001:1::1/128', 'Port Control Protocol anycast', 'reachable'),
  block('2001:1::2/128', 'TURN anycast', 'reachable'),
  block('2001:1::3/128', 'DNS-SD service registration anycast', 'reachable'),
  block('2001:3::/32', 'AMT', 'reachable'),
  block('2001:4:112::/48', 'AS112-v6', 'reachable'),
  block('2001:20::/28', 'ORCHIDv2', 'reachable'),
  block('2001:30::/28', 'drone remote ID', 'reachable'),
  block('2001::/32', 'Teredo'),
  block('2001:2::/48', 'benchmarking'),
  block('2001::/23', 'IETF protocol assignments'),
  block('2001:db8::/32', 'documentation'),
  block('2002::/16', '6to4', 'carries-ipv4', [1, 2]),
  block('3fff::/20', 'documentation'),
  block('5f00::/16', 'segment routing (SRv6) SIDs'),
  block('fc00::/7', 'unique local'),
  block('fe80::/10', 'link-local'),
  block('fec0::/10', 'site-local (deprecated)'),
  block('ff00::/8', 'multicast'),
];

/** Only 2000::/3 is allocated for global unicast; the rest of IPv6 is reserved. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

type Parsed = { block: Block; range: [ipaddr.IPv4 | ipaddr.IPv6, number] };
const parsed = (blocks: Block[]): Parsed[] =>
  blocks.map((entry) => ({ block: entry, range: ipaddr.parseCIDR(`${entry.network}/${entry.prefix}`) }));
// Most specific first, so that an exception wins over the block around it.
const bySpecificity = (a: Parsed, b: Parsed) => b.block.prefix - a.block.prefix;
const V4 = parsed(IPV4_BLOCKS).sort(bySpecificity);
const V6 = parsed(IPV6_BLOCKS).sort(bySpecificity);

/** Where an address stands: reachable on the public internet, or in a named special-purpose block. */
export type Classification =
  | { reachable: true; address: string }
  /** `address` is the one judged: the IPv4 address an IPv6 address carries, when it carries one. */
  | { reachable: false; address: string; network: string; name: string; carriedBy?: string };

/** Classifies an IP address (IPv4 or IPv6, as text); throws on what is not one. */
export function classifyAddress(text: string): Classification {
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') return classifyV4(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  const found = V6.find(({ range }) => v6.match(range));
  if (found?.block.kind === 'carries-ipv4') {
    const [high, low] = found.block.ipv4At!;
    const carried = new ipaddr.IPv4([
      v6.parts[high]! >> 8,
      v6.parts[high]! & 0xff,
      v6.parts[low]! >> 8,
      v6.parts[low]! & 0xff,
    ]);
    const judged = classifyV4(carried);
    return judged.reachable ? judged : { ...judged, carriedBy: `${v6.toString()} (${found.block.name})` };
  }
  if (found?.block.kind === 'reachable') return { reachable: true, address: v6.toString() };
  if (found) return refused(v6.toString(), found.block);
  if (!v6.match(GLOBAL_UNICAST))
    return { reachable: false, address: v6.toString(), network: '2000::/3', name: 'outside the global unicast space' };
  return { reachable: true, address: v6.toString() };
}

function classifyV4(address: ipaddr.IPv4): Classification {
  const found = V4.find(({ range }) => address.match(range));
  if (!found || found.block.kind === 'reachable') return { reachable: true, address: address.toString() };
  return refused(address.toString(), found.block);
}

const refused = (address: string, entry: Block): Classification => ({
  reachable: false,
  address,
  network: `${entry.network}/${entry.prefix}`,
  name: entry.name,
});
