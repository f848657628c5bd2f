import { describe, expect, it } from 'vitest';
import { addressRefusal, judgeHost, outboundPolicyFromEnv } from '../../../platform/outbound-policy.ts';
import { classifyAddress } from '../../../platform/special-addresses.ts';

const production = outboundPolicyFromEnv({ NODE_ENV: 'production' });

/** Reachable on the public internet, including the registry's reachable exceptions inside refused blocks. */
const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '181.49.0.1',
  '2001:4860:4860::8888',
  '2800:3f0::1',
  '192.0.0.9',
  '192.0.0.10',
  '192.88.99.1',
  '9.255.255.255',
  '11.0.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '2001:1::1',
  '2001:3::1',
  '2001:4:112::1',
  '2a00:1450:4001::1',
  // IPv4 carried in IPv6 is judged by what it carries.
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:0808:0808::1',
  '64:ff9b:1::1.1.1.1',
];

/** Every refused block, at its first and its last address. */
const REFUSED: [string, string][] = [
  ['0.0.0.0', '0.0.0.0/8'],
  ['0.255.255.255', '0.0.0.0/8'],
  ['10.0.0.0', '10.0.0.0/8'],
  ['10.255.255.255', '10.0.0.0/8'],
  ['100.64.0.0', '100.64.0.0/10'],
  ['100.127.255.255', '100.64.0.0/10'],
  ['127.0.0.0', '127.0.0.0/8'],
  ['127.255.255.255', '127.0.0.0/8'],
  ['169.254.0.0', '169.254.0.0/16'],
  ['169.254.255.255', '169.254.0.0/16'],
  ['172.16.0.0', '172.16.0.0/12'],
  ['172.31.255.255', '172.16.0.0/12'],
  ['192.0.0.0', '192.0.0.0/24'],
  ['192.0.0.255', '192.0.0.0/24'],
  ['192.0.2.0', '192.0.2.0/24'],
  ['192.0.2.255', '192.0.2.0/24'],
  ['192.168.0.0', '192.168.0.0/16'],
  ['192.168.255.255', '192.168.0.0/16'],
  ['198.18.0.0', '198.18.0.0/15'],
  ['198.19.255.255', '198.18.0.0/15'],
  ['198.51.100.0', '198.51.100.0/24'],
  ['198.51.100.255', '198.51.100.0/24'],
  ['203.0.113.0', '203.0.113.0/24'],
  ['203.0.113.255', '203.0.113.0/24'],
  ['224.0.0.0', '224.0.0.0/4'],
  ['239.255.255.255', '224.0.0.0/4'],
  ['240.0.0.0', '240.0.0.0/4'],
  ['255.255.255.254', '240.0.0.0/4'],
  ['255.255.255.255', '255.255.255.255/32'],
  ['::', '::/128'],
  ['::1', '::1/128'],
  ['2001:db8::', '2001:db8::/32'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::/32'],
  ['fc00::', 'fc00::/7'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fc00::/7'],
  ['fe80::', 'fe80::/10'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe80::/10'],
  ['fec0::', 'fec0::/10'],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fec0::/10'],
  ['ff00::', 'ff00::/8'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ff00::/8'],
  ['100::', '100::/64'],
  ['2001::1', '2001::/32'],
  ['2001:2::', '2001:2::/48'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001::/23'],
  ['3fff::', '3fff::/20'],
  ['5f00::1', '5f00::/16'],
  ['4000::1', '2000::/3'],
  // Carried IPv4: mapped, compatible, NAT64 (well-known and local-use), 6to4, each at the edges of what it carries.
  ['::ffff:127.0.0.1', '127.0.0.0/8'],
  ['::ffff:0.0.0.0', '0.0.0.0/8'],
  ['::ffff:255.255.255.255', '255.255.255.255/32'],
  ['::10.0.0.1', '10.0.0.0/8'],
  ['::0.0.0.2', '0.0.0.0/8'],
  ['::255.255.255.255', '255.255.255.255/32'],
  ['64:ff9b::a00:1', '10.0.0.0/8'],
  ['64:ff9b::ffff:ffff', '255.255.255.255/32'],
  ['64:ff9b:1::c0a8:101', '192.168.0.0/16'],
  ['64:ff9b:1:ffff:ffff:ffff:a9fe:a9fe', '169.254.0.0/16'],
  ['2002:7f00:1::', '127.0.0.0/8'],
  ['2002:ac10:0:ffff:ffff:ffff:ffff:ffff', '172.16.0.0/12'],
];

describe('the special-purpose address registries', () => {
  it.each(PUBLIC)('%s is publicly reachable', (address) => {
    expect(classifyAddress(address).reachable).toBe(true);
    expect(addressRefusal(address, production)).toBeNull();
  });

  it.each(REFUSED)('%s is refused, in %s', (address, network) => {
    expect(classifyAddress(address)).toMatchObject({ reachable: false, network });
    expect(addressRefusal(address, production)).toMatch(
      new RegExp(
        `is in ${network.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(.+\\); allow it with OUTBOUND_ALLOWED_NETWORKS$`,
      ),
    );
  });

  it('names the rule and the address an IPv6 address carries', () => {
    expect(addressRefusal('10.9.8.7', production)).toBe(
      '10.9.8.7 is in 10.0.0.0/8 (private); allow it with OUTBOUND_ALLOWED_NETWORKS',
    );
    expect(addressRefusal('::ffff:10.9.8.7', production)).toBe(
      '::ffff:a09:807 (IPv4-mapped) carries 10.9.8.7, which is in 10.0.0.0/8 (private); allow it with OUTBOUND_ALLOWED_NETWORKS',
    );
  });

  it('has a case for every block at its first and last address, beyond 60 in all', () => {
    expect(PUBLIC.length + REFUSED.length + HOSTS.length).toBeGreaterThanOrEqual(60);
  });
});

const noResolver = () => Promise.reject(new Error('a literal or a refused name must not be resolved'));

/** Host spellings as `new URL()` leaves them: the URL parser turns numeric IPv4 forms into dotted quads. */
const HOSTS: [string, RegExp][] = [
  ['localhost', /always names this machine/],
  ['localhost.', /always names this machine/],
  ['x.localhost', /always names this machine/],
  ['LOCALHOST', /always names this machine/],
  ['intranet', /single-label name/],
  ['erp.', /single-label name/],
  ['2130706433', /127\.0\.0\.0\/8/],
  ['0x7f000001', /127\.0\.0\.0\/8/],
  ['0177.0.0.1', /127\.0\.0\.0\/8/],
  ['[::ffff:127.0.0.1]', /carries 127\.0\.0\.1, which is in 127\.0\.0\.0\/8/],
  ['[::1]', /::1\/128/],
  ['0', /0\.0\.0\.0\/8/],
];

describe('host spellings', () => {
  it.each(HOSTS)('https://%s/ is refused', async (host, reason) => {
    const { hostname } = new URL(`https://${host}/hooks`);
    const verdict = await judgeHost(hostname, production, { resolve: noResolver });
    expect(verdict).toEqual({ refusal: expect.stringMatching(reason) });
  });

  it('judges a name by every address it resolves to', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '10.0.0.5', family: 4 as const },
    ];
    expect(await judgeHost('erp.example.com', production, { resolve })).toEqual({
      refusal:
        'erp.example.com resolves to 10.0.0.5 is in 10.0.0.0/8 (private); allow it with OUTBOUND_ALLOWED_NETWORKS',
    });
  });

  it('never treats a name that does not resolve as public', async () => {
    const resolve = () => Promise.reject(Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect(await judgeHost('erp.example.com', production, { resolve })).toEqual({
      unresolved: 'erp.example.com does not resolve (ENOTFOUND)',
    });
  });
});

describe('the operator allowlist', () => {
  const policy = outboundPolicyFromEnv({
    NODE_ENV: 'production',
    OUTBOUND_ALLOWED_NETWORKS: '10.20.0.0/16, fd00:1::/64',
  });

  it('allows the networks it names, IPv4 carried in IPv6 included, and nothing else', () => {
    expect(addressRefusal('10.20.3.4', policy)).toBeNull();
    expect(addressRefusal('::ffff:10.20.3.4', policy)).toBeNull();
    expect(addressRefusal('fd00:1::9', policy)).toBeNull();
    expect(addressRefusal('10.21.0.1', policy)).toMatch(/10\.0\.0\.0\/8/);
    expect(addressRefusal('fd00:2::9', policy)).toMatch(/fc00::\/7/);
    expect(addressRefusal('127.0.0.1', policy)).toMatch(/loopback/);
  });

  it('refuses to start with a network it cannot read', () => {
    expect(() => outboundPolicyFromEnv({ OUTBOUND_ALLOWED_NETWORKS: '10.20.0.0/33' })).toThrow(
      'OUTBOUND_ALLOWED_NETWORKS: "10.20.0.0/33" is not a network in CIDR form (e.g. 10.20.0.0/16, fd00:1::/64)',
    );
    expect(() => outboundPolicyFromEnv({ OUTBOUND_ALLOWED_NETWORKS: 'vpn' })).toThrow(/"vpn"/);
  });

  it('lets loopback receivers through in development only', async () => {
    const development = outboundPolicyFromEnv({});
    expect(development.loopbackReceivers).toBe(true);
    expect(production.loopbackReceivers).toBe(false);
    expect(await judgeHost('127.0.0.1', development, { loopback: true })).toEqual({
      addresses: [{ address: '127.0.0.1', family: 4 }],
    });
    expect(await judgeHost('127.0.0.1', development)).toHaveProperty('refusal');
  });
});
