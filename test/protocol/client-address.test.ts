/** Client address keys and `X-Forwarded-For`, shared by proxy and server: IPv6 counted per /56 (or as configured), IPv4 per address, ports dropped. */
import { describe, expect, it } from 'vitest';
import { addressKey, forwardedClient, ipv6PrefixLength, trustedHops } from '../../src/protocol/client-address.js';

describe('addressKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2::1', '2001:db8:1::/56'],
    ['2001:0DB8:0001:02FF:ffff:ffff:ffff:ffff', '2001:db8:1:200::/56'],
    ['2001:db8:1:2aa:aaaa:bbbb:cccc:dddd', '2001:db8:1:200::/56'],
    ['fe80::1%eth0', 'fe80::/56'],
    ['::1', '::/56'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['unknown', 'unknown'],
    ['2001:db8::zz', '2001:db8::zz'],
  ])('%s is counted as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('puts every address of one /56 under one key and neighbouring /56s under others', () => {
    const keys = new Set(Array.from({ length: 160 }, (_, i) => addressKey(`2001:db8:1:2${(i % 256).toString(16).padStart(2, '0')}:${(i * 7).toString(16)}::${i.toString(16)}`)));
    expect([...keys]).toEqual(['2001:db8:1:200::/56']);
    expect(addressKey('2001:db8:1:300::1')).not.toBe(addressKey('2001:db8:1:2ff::1'));
  });

  it.each([
    [64, '2001:db8:1:2aa::/64'],
    [48, '2001:db8:1::/48'],
    [60, '2001:db8:1:2a0::/60'],
    [128, '2001:db8:1:2aa:1:2:3:4/128'],
  ])('with a /%s prefix counts 2001:db8:1:2aa:1:2:3:4 as %s', (prefix, key) => {
    expect(addressKey('2001:db8:1:2aa:1:2:3:4', prefix)).toBe(key);
  });

  it('answers at once for the longest address-like strings', () => {
    const started = performance.now();
    for (const hostile of [':'.repeat(100_000), `${'1:'.repeat(50_000)}1`, `::${'f'.repeat(100_000)}`, `${'a'.repeat(100_000)}:`]) addressKey(hostile);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('forwardedClient', () => {
  it('takes the entry the outermost trusted proxy appended, counted from the right', () => {
    expect(forwardedClient('10.0.0.1, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(forwardedClient('10.0.0.1, 203.0.113.9, 192.0.2.1', 2)).toBe('203.0.113.9');
    expect(forwardedClient('203.0.113.9', 2)).toBeUndefined();
    expect(forwardedClient('203.0.113.9', 0)).toBeUndefined();
    expect(forwardedClient(null, 1)).toBeUndefined();
  });

  it.each([
    ['203.0.113.9:5678', '203.0.113.9'],
    ['[2001:db8::1]:80', '2001:db8::1'],
    ['[::1]:80', '::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:db8::1', '2001:db8::1'],
    ['203.0.113.9', '203.0.113.9'],
    // Not an address and a port: passed on as given.
    ['203.0.113.9:x', '203.0.113.9:x'],
    ['203.0.113.9:123456', '203.0.113.9:123456'],
    ['[2001:db8::1]:80:80', '[2001:db8::1]:80:80'],
    ['[nothost]:80', '[nothost]:80'],
    ['[2001:db8::1', '[2001:db8::1'],
    ['unknown', 'unknown'],
  ])('drops the port of %s: %s', (entry, address) => {
    expect(forwardedClient(`10.0.0.1, ${entry}`, 1)).toBe(address);
  });

  it('answers at once for the longest bracketed and colon-laden entries', () => {
    const started = performance.now();
    for (const hostile of [`[${':'.repeat(100_000)}]:80`, `[${'1:'.repeat(50_000)}`, `${'9'.repeat(100_000)}:${'9'.repeat(100_000)}`, `[]${':'.repeat(100_000)}`]) forwardedClient(hostile, 1);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it.each([
    [true, 1],
    [false, 0],
    [undefined, 0],
    [3, 3],
  ])('trustedHops(%s) is %s', (value, hops) => expect(trustedHops(value, 'x')).toBe(hops));

  it('refuses other trust values', () => {
    expect(() => trustedHops(-1, 'trustProxy')).toThrow('trustProxy must be a boolean or a whole number of proxies');
    expect(() => trustedHops(1.5, 'trustProxy')).toThrow(TypeError);
  });

  it('takes an IPv6 prefix length of 16 to 128, 56 unless given', () => {
    expect(ipv6PrefixLength(undefined, 'x')).toBe(56);
    expect(ipv6PrefixLength(64, 'x')).toBe(64);
    for (const bad of [8, 129, 56.5, Number.NaN]) expect(() => ipv6PrefixLength(bad, 'ipv6Prefix')).toThrow('ipv6Prefix must be a whole number from 16 to 128');
  });
});
