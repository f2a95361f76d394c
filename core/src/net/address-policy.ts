// Which dialled addresses an outbound request to a user-given URL may reach: public unicast only, and the private
// hosts and ranges the operator opened (ALLOWED_PRIVATE_ADDRESSES, private-allowance.ts). Addresses are classified
// with ipaddr.js on the parsed address (never string patterns), after IPv4-mapped IPv6 is unwrapped, so
// `::ffff:7f00:1`, `::127.0.0.1` and `127.1` are all loopback. Tests open single loopback addresses through
// allowAddressesForTests (the testing entry point); no setting can.
import ipaddr from 'ipaddr.js';
import { operatorAllows } from './private-allowance.js';

/** Address → how many allowances hold it (tests of one file may overlap). */
const allowedForTests = new Map<string, number>();
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The address without IPv6 brackets, normalised (IPv4-mapped IPv6 as IPv4), or null when it is not an IP. */
export function normaliseAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare).toString();
}

/** Names that are loopback by definition (RFC 6761), refused before any lookup. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Null when a request to `hostname` (the URL's host, when known) may dial `address`, else the range that refuses it
 * (`loopback`, `private`, `linkLocal`, `carrierGradeNat`, `uniqueLocal`, `multicast`, `unspecified`, `reserved`,
 * `6to4`…). ipaddr.js's `unicast` (public) passes, and what the operator opened: ranges that embed an IPv4 address
 * (6to4, Teredo, NAT64) are refused with the rest.
 */
export function refusedRange(address: string, hostname?: string): string | null {
  const normal = normaliseAddress(address);
  if (normal === null) return 'not an IP address';
  if (allowedForTests.has(normal)) return null;
  const parsed = ipaddr.process(normal);
  let range: string = parsed.range();
  // ipaddr.js calls all of IPv6 outside its named ranges unicast, `::7f00:1` (IPv4-compatible) included: public
  // IPv6 is 2000::/3 only.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) range = 'reserved';
  if (range === 'unicast' || operatorAllows(normal, range, hostname)) return null;
  return range;
}

/**
 * Tests only (exported from @quad/core/testing): let requests dial these exact addresses, e.g. a page server on
 * 127.0.0.2 while a canary on 127.0.0.1 stays refused. Returns the undo.
 */
export function allowAddressesForTests(addresses: string[]): () => void {
  const added = addresses.map((a) => {
    const normal = normaliseAddress(a);
    if (normal === null) throw new Error(`allowAddressesForTests: ${a} is not an IP address`);
    return normal;
  });
  for (const a of added) allowedForTests.set(a, (allowedForTests.get(a) ?? 0) + 1);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    for (const a of added) {
      const n = (allowedForTests.get(a) ?? 1) - 1;
      if (n > 0) allowedForTests.set(a, n);
      else allowedForTests.delete(a);
    }
  };
}
