/** Client address keys and `X-Forwarded-For`, shared by proxy and server: IPv6 counted per /64, IPv4 per address. */
import { describe, expect, it } from 'vitest';
import { addressKey, forwardedClient, trustedHops } from '../../src/protocol/client-address.js';

describe('addressKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['::1', '::/64'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['unknown', 'unknown'],
    ['2001:db8::zz', '2001:db8::zz'],
  ])('%s is counted as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('puts every address of one /64 under one key and neighbouring /64s under others', () => {
    const keys = new Set(Array.from({ length: 160 }, (_, i) => addressKey(`2001:db8:1:2:${i.toString(16)}:${(i * 7).toString(16)}::${i.toString(16)}`)));
    expect([...keys]).toEqual(['2001:db8:1:2::/64']);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
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
    [true, 1],
    [false, 0],
    [undefined, 0],
    [3, 3],
  ])('trustedHops(%s) is %s', (value, hops) => expect(trustedHops(value, 'x')).toBe(hops));

  it('refuses other trust values', () => {
    expect(() => trustedHops(-1, 'trustProxy')).toThrow('trustProxy must be a boolean or a whole number of proxies');
    expect(() => trustedHops(1.5, 'trustProxy')).toThrow(TypeError);
  });
});
