// ALLOWED_PRIVATE_ADDRESSES: the operator's private hosts and ranges. The accepted and refused forms of the setting,
// and what the safe fetcher then dials. Whether anything answers at a private address depends on the machine's network
// (here a proxy answers every address; elsewhere nothing does), so an opened address is shown by the fetch not being
// `refused`: that reason means the check stopped it before any byte left; an answer, `network` or `timeout` means it
// was dialled. Names resolve through a fake DNS server.
import t from 'tap';
import { ConfigSource, safeFetch, SafeFetchError } from '@quad/core';
import { resolveWithDnsServerForTests, startTestApp } from '@quad/core/testing';
import { loadRegistry } from '../../core/src/modules/load.js';
import { parsePrivateAllowance, setPrivateAllowance } from '../../core/src/net/private-allowance.js';
import { startFakeDns } from '../fakes/dns.js';

const dns = await startFakeDns();
t.teardown(() => dns.close());
t.teardown(resolveWithDnsServerForTests(dns.server));
dns.set('wiki.club.internal', ['10.254.254.7']);
dns.set('other.club.internal', ['10.254.254.7']);
dns.set('loop.club.internal', ['127.0.0.1']);
dns.set('meta.club.internal', ['169.254.169.254']);
dns.set('mixed.club.internal', ['10.254.254.7', '127.0.0.1']);

/** `answered`, or the reason the fetch of `url` failed. */
async function reason(url: string): Promise<string> {
  try {
    await safeFetch(url, { timeoutMs: 400 });
    return 'answered';
  } catch (err) {
    return err instanceof SafeFetchError ? err.reason : `unexpected ${String(err)}`;
  }
}
const dialled = (r: string) => r === 'answered' || r === 'network' || r === 'timeout';

t.test('accepted forms: addresses, CIDR ranges and exact host names', async (t) => {
  const { allowance, problems } = parsePrivateAllowance(['10.20.0.0/16', '192.168.1.5', 'fd12:3456::/32', '100.64.0.0/10', 'Wiki.Club.Internal.', 'search']);
  t.same(problems, []);
  t.same(allowance.ranges.map(([net, bits]) => `${net.toString()}/${bits}`), ['10.20.0.0/16', '192.168.1.5/32', 'fd12:3456::/32', '100.64.0.0/10']);
  t.same([...allowance.hosts], ['wiki.club.internal', 'search'], 'names lower-cased, trailing dot dropped');
});

t.test('refused forms: loopback, link-local, multicast, reserved, everything, loopback names, URLs, numbers', async (t) => {
  const refused = ['127.0.0.1', '127.0.0.0/8', '0.0.0.0/0', '::/0', '::1', '169.254.169.254', '169.254.0.0/16', '224.0.0.1', '240.0.0.0/4',
    'fe80::1', '::ffff:10.0.0.1', '0.0.0.0', '10.0.0.0/0', 'localhost', 'db.localhost', 'http://wiki.club.internal/', 'wiki:8080',
    '2130706433', '10.1', 'a b', '-bad-.example'];
  for (const entry of refused) {
    const { allowance, problems } = parsePrivateAllowance([entry]);
    t.equal(problems.length, 1, `${entry} is refused`);
    t.match(problems[0], /^ALLOWED_PRIVATE_ADDRESSES: /, 'named by the setting');
    t.equal(allowance.ranges.length + allowance.hosts.size, 0, `${entry} opens nothing`);
  }
  t.match(parsePrivateAllowance(['0.0.0.0/0'])[`problems`][0], /0\.0\.0\.0\/0 holds 0\.0\.0\.0\/8 .*name a narrower private range/);
  await t.rejects(loadRegistry(new ConfigSource({ env: { ALLOWED_PRIVATE_ADDRESSES: '10.1.0.0/16, 127.0.0.1' } })), {
    name: 'ConfigError', message: /ALLOWED_PRIVATE_ADDRESSES: 127\.0\.0\.1 holds 127\.0\.0\.0\/8/,
  }, 'a bad entry stops the start with the others\' problems');
});

t.test('nothing is opened by default: private addresses and names stay refused', async (t) => {
  t.equal(await reason('http://10.254.254.7:9/'), 'refused');
  t.equal(await reason('http://wiki.club.internal:9/'), 'refused');
});

t.test('an opened range is dialled, by address or by any name that resolves into it; the rest stays refused', async (t) => {
  const undo = setPrivateAllowance(parsePrivateAllowance(['10.254.254.0/24']).allowance);
  t.teardown(undo);
  t.ok(dialled(await reason('http://10.254.254.7:9/')), 'the address is dialled');
  t.ok(dialled(await reason('http://other.club.internal:9/')), 'a name resolving into the range is dialled');
  t.equal(await reason('http://10.254.255.7:9/'), 'refused', 'an address outside the range');
  t.equal(await reason('http://192.168.1.1:9/'), 'refused', 'another private range');
  t.equal(await reason('http://127.0.0.1:9/'), 'refused', 'loopback');
  t.equal(await reason('http://169.254.169.254/latest/meta-data/'), 'refused', 'cloud metadata');
  t.equal(await reason('http://mixed.club.internal:9/'), 'refused', 'a name with one loopback address among opened ones');
  undo();
  t.equal(await reason('http://10.254.254.7:9/'), 'refused', 'undone: refused again');
});

t.test('an opened name may resolve to private addresses, never to loopback or link-local; other names may not', async (t) => {
  t.teardown(setPrivateAllowance(parsePrivateAllowance(['wiki.club.internal', 'loop.club.internal', 'meta.club.internal']).allowance));
  t.ok(dialled(await reason('http://wiki.club.internal:9/')), 'the named host is dialled');
  t.ok(dialled(await reason('http://WIKI.club.internal.:9/')), 'in any case, with a trailing dot');
  t.equal(await reason('http://other.club.internal:9/'), 'refused', 'another name at the same address');
  t.equal(await reason('http://10.254.254.7:9/'), 'refused', 'the address itself');
  t.equal(await reason('http://loop.club.internal:9/'), 'refused', 'a named host resolving to loopback');
  t.equal(await reason('http://meta.club.internal/'), 'refused', 'a named host resolving to link-local');
});

t.test('a Quad started with the setting opens it for its process until it closes', async (t) => {
  const inner = t.test('started', async (t) => {
    await startTestApp(t, { config: { ALLOWED_PRIVATE_ADDRESSES: ['10.254.254.0/24'] } });
    t.ok(dialled(await reason('http://10.254.254.7:9/')), 'opened while it runs');
  });
  await inner;
  t.equal(await reason('http://10.254.254.7:9/'), 'refused', 'closed: refused again');
});
