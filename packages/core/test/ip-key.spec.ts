// The key of `by: 'ip'` rate limits: IPv4 addresses one by one, IPv6 by network prefix, and one
// client's two spellings (IPv4, IPv4-mapped IPv6) as one.
import { DEFAULT_IPV6_SUBNET, ipKey, resolveIpv6Subnet } from '@gantry/core';

describe('ipKey', () => {
  it('keys an IPv4 address as it is, and its IPv4-mapped IPv6 form the same', () => {
    expect(ipKey('203.0.113.7')).toBe('ip:203.0.113.7');
    expect(ipKey('::ffff:203.0.113.7')).toBe('ip:203.0.113.7');
    expect(ipKey('::FFFF:cb00:7107')).toBe('ip:203.0.113.7');
  });

  it(`keys IPv6 addresses by their /${DEFAULT_IPV6_SUBNET} by default`, () => {
    const key = ipKey('2001:db8:12:3456::1');
    expect(key).toBe('ip:2001:db8:12:3400::/56');
    // Any other address of that network, however it is written, shares the key.
    expect(ipKey('2001:db8:12:34ff:ffff:ffff:ffff:ffff')).toBe(key);
    expect(ipKey('2001:0DB8:0012:3456:0000:0000:0000:0002')).toBe(key);
    // The next /56 does not.
    expect(ipKey('2001:db8:12:3500::1')).toBe('ip:2001:db8:12:3500::/56');
  });

  it('keys by the prefix asked for, down to one address at /128', () => {
    expect(ipKey('2001:db8:12:3456::1', 64)).toBe('ip:2001:db8:12:3456::/64');
    expect(ipKey('2001:db8:12:3456::1', 48)).toBe('ip:2001:db8:12::/48');
    expect(ipKey('2001:db8::1', 128)).toBe('ip:2001:db8::1/128');
    expect(ipKey('2001:db8::2', 128)).toBe('ip:2001:db8::2/128');
    expect(ipKey('::1')).toBe('ip:::/56');
  });

  it('keys what is no address as it was written, and no address as unknown', () => {
    expect(ipKey('not:an:address:at:all')).toBe('ip:not:an:address:at:all');
    expect(ipKey(undefined)).toBe('ip:unknown');
    expect(ipKey('')).toBe('ip:unknown');
  });
});

describe('resolveIpv6Subnet', () => {
  it.each([0, 129, 56.5, '56', null])('refuses %p, naming the option', (value) => {
    expect(() => resolveIpv6Subnet(value, 'limits.ipv6Subnet')).toThrow(
      new TypeError(`limits.ipv6Subnet must be a prefix length from 1 to 128, got ${String(value)}`),
    );
  });

  it('accepts 1 to 128, and gives the default for undefined', () => {
    expect(resolveIpv6Subnet(1, 'x')).toBe(1);
    expect(resolveIpv6Subnet(128, 'x')).toBe(128);
    expect(resolveIpv6Subnet(undefined, 'x')).toBe(DEFAULT_IPV6_SUBNET);
  });
});
