/**
 * The rate-limit key of a caller's address (`by: 'ip'`, and the HTTP transport's `rateLimit`).
 * An IPv4 address is its own key. An IPv6 address is keyed by its network prefix: one customer
 * is typically given a /56 or a /64 (RFC 6177), and can pick any of its 2^64 or more addresses
 * per request, so a key per address would let one client past any limit. An IPv4-mapped IPv6
 * address (`::ffff:203.0.113.7`, as a dual-stack socket reports IPv4 peers) is keyed as the IPv4
 * address it maps, so both spellings of one client share a budget.
 */
import ipaddr from 'ipaddr.js';

/** The IPv6 prefix length that keys an address by default: a /56, a customer's usual share. */
export const DEFAULT_IPV6_SUBNET = 56;

/**
 * An `ipv6Subnet` option: {@link DEFAULT_IPV6_SUBNET} when undefined, else an integer from 1
 * to 128; throws a TypeError naming `where` for anything else.
 */
export function resolveIpv6Subnet(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_IPV6_SUBNET;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 128) {
    throw new TypeError(`${where} must be a prefix length from 1 to 128, got ${String(value)}`);
  }
  return value as number;
}

/** `ip:` and the address, or its IPv6 network (`ip:2001:db8:12:3400::/56`); `ip:unknown` without one. */
export function ipKey(address: string | undefined, ipv6Subnet = DEFAULT_IPV6_SUBNET): string {
  if (address === undefined || address === '') return 'ip:unknown';
  // Node reports IPv4 peers dotted: no parsing on that path.
  if (!address.includes(':')) return `ip:${address}`;
  let parsed: ipaddr.IPv6;
  try {
    const any = ipaddr.parse(address);
    if (any.kind() !== 'ipv6') return `ip:${any.toString()}`;
    parsed = any as ipaddr.IPv6;
  } catch {
    // Not an address (a proxy forwarded something else): keyed as it was written.
    return `ip:${address}`;
  }
  if (parsed.isIPv4MappedAddress()) return `ip:${parsed.toIPv4Address().toString()}`;
  const bytes = parsed.toByteArray();
  for (let bit = ipv6Subnet; bit < 128; bit++) bytes[bit >> 3] &= ~(0x80 >> (bit & 7));
  return `ip:${ipaddr.fromByteArray(bytes).toString()}/${ipv6Subnet}`;
}
