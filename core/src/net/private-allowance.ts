// ALLOWED_PRIVATE_ADDRESSES: the private hosts and ranges an operator opens to the safe fetcher (a club's intranet
// wiki, a self-hosted search or rendering service), as Mastodon's setting of that name does. Empty by default. An
// entry is an address, a CIDR range or a host name:
// - an address or range may then be dialled by any request, whatever name led to it. Ranges that hold loopback,
//   link-local (cloud metadata at 169.254.169.254), unspecified, multicast or reserved addresses cannot be opened:
//   the setting is refused at start, so `0.0.0.0/0` or `127.0.0.1` never quietly turn the check off;
// - a host name (exact, not a pattern) may then resolve to private, unique-local or carrier-grade NAT addresses
//   (never loopback or link-local). Whoever controls that name's DNS can point it at any such address: name only
//   hosts whose DNS the operator controls.
// The allowance is per process, set from the settings when a Quad starts.
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface PrivateAllowance {
  readonly ranges: readonly Range[];
  /** Lower-case, without a trailing dot. */
  readonly hosts: ReadonlySet<string>;
}

const NONE: PrivateAllowance = { ranges: [], hosts: new Set() };

/** What no entry may open: an entry overlapping one of these is refused. */
const NEVER: readonly Range[] = [
  '0.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '240.0.0.0/4',
  '::/96', '::ffff:0:0/96', 'fe80::/10', 'ff00::/8',
].map((cidr) => ipaddr.parseCIDR(cidr));

/** The ranges a named host may resolve into. */
const NAMED_HOST_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);

const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A last label of digits (or hex) makes a number, which resolvers read as an address (`2130706433` is 127.0.0.1). */
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/;

let current: PrivateAllowance = NONE;
/** Bumped on every change: the safe fetcher then drops its kept-alive connections, which were checked under the old one. */
let generation = 0;

export const allowanceGeneration = () => generation;

/** The allowance of `entries`, or the problems that refuse it (one line each, naming the entry). */
export function parsePrivateAllowance(entries: readonly string[]): { allowance: PrivateAllowance; problems: string[] } {
  const ranges: Range[] = [];
  const hosts = new Set<string>();
  const problems: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const range = parseRange(entry);
    if (range) {
      const blocked = NEVER.find((never) => overlaps(range, never));
      if (blocked) problems.push(`ALLOWED_PRIVATE_ADDRESSES: ${raw} holds ${blocked[0].toString()}/${blocked[1]} (loopback, link-local, multicast or reserved), which no setting opens; name a narrower private range`);
      else ranges.push(range);
      continue;
    }
    const host = entry.replace(/\.$/, '');
    if (host === 'localhost' || host.endsWith('.localhost')) {
      problems.push(`ALLOWED_PRIVATE_ADDRESSES: ${raw} is a loopback name, which no setting opens`);
    } else if (host.length > 253 || !host.split('.').every((label) => HOST_LABEL.test(label)) || NUMERIC_LABEL.test(host.split('.').at(-1)!)) {
      problems.push(`ALLOWED_PRIVATE_ADDRESSES: ${raw} is not an address, a CIDR range (10.1.0.0/16) or a host name (wiki.club.internal)`);
    } else {
      hosts.add(host);
    }
  }
  return { allowance: { ranges, hosts }, problems };
}

/** Use `allowance` for this process's safe fetches; returns the undo (back to nothing opened). */
export function setPrivateAllowance(allowance: PrivateAllowance): () => void {
  current = allowance;
  generation++;
  return () => {
    if (current !== allowance) return;
    current = NONE;
    generation++;
  };
}

/**
 * Whether the operator opened `address` (normalised, of ipaddr.js `range` name `range`), dialled for `hostname`: the
 * address is in an allowed range, or the name is allowed and the address is private.
 */
export function operatorAllows(address: string, range: string, hostname: string | undefined): boolean {
  if (current === NONE) return false;
  const parsed = ipaddr.process(address);
  if (current.ranges.some(([net, bits]) => parsed.kind() === net.kind() && parsed.match(net, bits))) return true;
  return hostname !== undefined && NAMED_HOST_RANGES.has(range) && current.hosts.has(hostname.toLowerCase().replace(/\.$/, ''));
}

function parseRange(entry: string): Range | null {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    if (!ipaddr.IPv4.isValidFourPartDecimal(entry) && !ipaddr.IPv6.isValid(entry)) return null;
    const address = ipaddr.parse(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** Two ranges of one family overlap when one holds the other's first address. */
function overlaps([a, aBits]: Range, [b, bBits]: Range): boolean {
  if (a.kind() !== b.kind()) return false;
  return a.match(b, Math.min(aBits, bBits));
}
