// The safe fetcher against every SSRF form of PITFALLS.md. A canary server on loopback (127.0.0.1 and ::1) must see
// zero connections; the "outside" page server listens on 127.0.0.2, the one address the test allowance opens, on
// the same port as the canary so that only the address decides. Names resolve through a fake DNS server, including
// one whose answer changes between two lookups.
import t, { type Test } from 'tap';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeFetch, SafeFetchError } from '@quad/core';
import { allowAddressesForTests, resolveWithDnsServerForTests } from '@quad/core/testing';
import { startFakeDns } from '../fakes/dns.js';
import { ssrfForms } from '../fakes/ssrf.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** The page server on 127.0.0.2 and canaries on 127.0.0.1 and ::1 of the same port (retried if the port is taken). */
async function startServers(handler: Handler) {
  for (let attempt = 0; ; attempt++) {
    const page = createServer(handler);
    const port = await listen(page, 0, '127.0.0.2');
    const canaries = [createServer((_req, res) => res.end('canary')), createServer((_req, res) => res.end('canary'))];
    let connections = 0;
    for (const c of canaries) c.on('connection', () => { connections++; });
    try {
      await listen(canaries[0], port, '127.0.0.1');
      await listen(canaries[1], port, '::1').catch(() => {}); // a machine without IPv6 loopback has nothing to reach
      return {
        port,
        connections: () => connections,
        close: async () => { for (const s of [page, ...canaries]) { s.closeAllConnections(); await new Promise((r) => s.close(r)); } },
      };
    } catch (err) {
      await new Promise((r) => page.close(r));
      if (attempt > 5) throw err;
    }
  }
}

let hits: string[] = [];
const servers = await startServers((req, res) => {
  hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
  const url = new URL(req.url!, 'http://x');
  const to = url.searchParams.get('to');
  if (url.pathname === '/redirect' && to) {
    res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to, connection: 'close' });
    return res.end();
  }
  if (url.pathname.startsWith('/hops/')) {
    const n = Number(url.pathname.split('/')[2]);
    if (n > 0) { res.writeHead(302, { location: `/hops/${n - 1}` }); return res.end(); }
    return res.end('arrived');
  }
  if (url.pathname === '/big') {
    const bytes = Number(url.searchParams.get('bytes'));
    if (url.searchParams.get('chunked')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const piece = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => { while (sent < bytes) { sent += piece.length; if (!res.write(piece)) return res.once('drain', pump); } res.end(); };
      return pump();
    }
    res.writeHead(200, { 'content-length': bytes });
    return res.end(Buffer.alloc(bytes, 'a'));
  }
  if (url.pathname === '/silent') return; // never answers
  if (url.pathname === '/latin1') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
    return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  }
  if (url.pathname === '/echo') {
    let body = '';
    req.on('data', (c) => { body += c; });
    return req.on('end', () => res.end(JSON.stringify({ method: req.method, body })));
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`page ${url.pathname}`);
});
const dns = await startFakeDns();
const undoResolve = resolveWithDnsServerForTests(dns.server);
const undoAllow = allowAddressesForTests(['127.0.0.2']);
t.teardown(async () => { undoAllow(); undoResolve(); await servers.close(); await dns.close(); });

const { port } = servers;
const outside = `http://127.0.0.2:${port}`;

dns.set('canary.test', ['127.0.0.1']);
dns.set('canary6.test', ['::1']);
dns.set('mapped.test', ['::ffff:127.0.0.1']);
dns.set('outside.test', ['127.0.0.2']);
dns.set('mixed.test', ['127.0.0.2', '127.0.0.1']);
dns.set('metadata.test', ['169.254.169.254']);

const hostOf = (url: string) => { try { return new URL(url).hostname; } catch { return ''; } };

async function refused(t: Test, url: string, why: RegExp | string = /refused|not fetched|Only http/) {
  const err = await safeFetch(url, { timeoutMs: 3000 }).then(() => null, (e: unknown) => e);
  t.ok(err instanceof SafeFetchError, `${url} fails with a SafeFetchError`);
  t.equal((err as SafeFetchError).reason, 'refused', `${url} is refused`);
  t.match((err as SafeFetchError).message, why);
  // A name's message names the name, never what it resolved to.
  if (/^[a-z]/i.test(hostOf(url))) t.notMatch((err as SafeFetchError).message, /127\.0\.0\.1|::1|169\.254/, 'no resolved address in the message');
}

t.test('the allowed page server answers (the allowance, names, charsets)', async (t) => {
  const res = await safeFetch(`${outside}/hello`);
  t.equal(res.status, 200);
  t.equal(res.text(), 'page /hello');
  t.equal(res.url, `${outside}/hello`);
  t.equal((await safeFetch(`http://outside.test:${port}/named`)).text(), 'page /named', 'a name that resolves to the allowed address');
  t.equal((await safeFetch(`${outside}/latin1`)).text(), 'café', 'the charset of the content-type decodes the body');
});

t.test('every spelling of a loopback or private address is refused before a connection', async (t) => {
  for (const url of ssrfForms(port)) await refused(t, url, /address: refused/);
});

t.test('schemes other than http(s) and credentials in the URL are refused', async (t) => {
  for (const url of ['file:///etc/passwd', 'ftp://127.0.0.2/', 'gopher://127.0.0.2:70/_', 'data:text/plain,hi', 'javascript:alert(1)']) {
    await refused(t, url, /Only http and https/);
  }
  // The host after the @ is the one dialled; credentials are refused whatever the host.
  await refused(t, `http://127.0.0.2:${port}@127.0.0.1:${port}/`, /user name or password/);
  await refused(t, `http://user:secret@127.0.0.2:${port}/`, /user name or password/);
  await refused(t, 'not a url', /not valid/);
});

t.test('names that resolve to non-public addresses are refused (DNS answers checked, not names)', async (t) => {
  await refused(t, `http://canary.test:${port}/`, /canary\.test is at a loopback address/);
  await refused(t, `http://canary6.test:${port}/`, /loopback/);
  await refused(t, `http://mapped.test:${port}/`, /loopback/);
  await refused(t, 'http://metadata.test/latest/meta-data/', /link-local/);
  await refused(t, `http://mixed.test:${port}/`, /loopback/);
});

t.test('redirects are followed one at a time and each hop is checked', async (t) => {
  hits = [];
  for (const to of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://canary.test:${port}/`, `http://[::ffff:7f00:1]:${port}/`, 'file:///etc/passwd']) {
    await refused(t, `${outside}/redirect?to=${encodeURIComponent(to)}`);
  }
  t.equal(hits.length, 5, 'the first hop was fetched each time, the second never');
  const five = await safeFetch(`${outside}/hops/5`);
  t.equal(five.text(), 'arrived', 'five redirects are followed');
  t.equal(five.url, `${outside}/hops/0`);
  const six = await safeFetch(`${outside}/hops/6`).catch((e: unknown) => e);
  t.equal((six as SafeFetchError).reason, 'too_many_redirects');
  const none = await safeFetch(`${outside}/hops/1`, { maxRedirects: 0 });
  t.equal(none.status, 302, 'maxRedirects 0 returns the redirect itself');
});

t.test('a DNS answer that changes between two lookups cannot reach loopback (rebinding)', async (t) => {
  dns.set('rebind.test', ['127.0.0.2'], ['127.0.0.1']);
  hits = [];
  // The first connection resolves to the allowed address; the page closes it and redirects to the same name, whose
  // second lookup answers loopback: that dial is refused.
  const err = await safeFetch(`http://rebind.test:${port}/redirect?to=${encodeURIComponent(`http://rebind.test:${port}/second`)}`).catch((e: unknown) => e);
  t.equal((err as SafeFetchError).reason, 'refused');
  t.same(hits.map((h) => h.split(' ')[1].split('?')[0]), ['/redirect'], 'only the first hop reached the page server');
});

t.test('credentials stay with their origin; a 303 after POST turns into a GET', async (t) => {
  hits = [];
  await safeFetch(`${outside}/redirect?to=${encodeURIComponent(`http://outside.test:${port}/landed`)}`, { headers: { authorization: 'Bearer k' } });
  t.same(hits.map((h) => h.trim()), ['GET /redirect?to=' + encodeURIComponent(`http://outside.test:${port}/landed`) + ' Bearer k', 'GET /landed'],
    'another origin does not get the authorization header');
  const res = await safeFetch(`${outside}/redirect?status=303&to=/echo`, { method: 'POST', body: 'x=1' });
  t.same(res.json(), { method: 'GET', body: '' });
  const kept = await safeFetch(`${outside}/redirect?status=307&to=/echo`, { method: 'POST', body: 'x=1' });
  t.same(kept.json(), { method: 'POST', body: 'x=1' }, 'a 307 keeps the method and body');
});

t.test('the size cap holds with and without a content-length', async (t) => {
  const max = 1024 * 1024;
  t.equal((await safeFetch(`${outside}/big?bytes=${max}`, { maxBytes: max })).body.length, max, 'exactly the cap is fine');
  for (const query of [`bytes=${max + 1}`, `bytes=${11 * max}&chunked=1`]) {
    const err = await safeFetch(`${outside}/big?${query}`, { maxBytes: max }).catch((e: unknown) => e);
    t.equal((err as SafeFetchError).reason, 'too_large', query);
    t.match((err as Error).message, /more than 1 MB/);
  }
  const tenMb = await safeFetch(`${outside}/big?bytes=${10 * max + 1}&chunked=1`).catch((e: unknown) => e);
  t.equal((tenMb as SafeFetchError).reason, 'too_large', 'the default cap is 10 MB');
});

t.test('a server that never answers fails with a timeout', async (t) => {
  const err = await safeFetch(`${outside}/silent`, { timeoutMs: 300 }).catch((e: unknown) => e);
  t.equal((err as SafeFetchError).reason, 'timeout');
  t.match((err as Error).message, /did not answer within 0\.3 s/);
  const gone = await safeFetch('http://127.0.0.2:1/').catch((e: unknown) => e);
  t.equal((gone as SafeFetchError).reason, 'network', 'a closed port is a network failure');
  const unknown = await safeFetch('http://nowhere.test/').catch((e: unknown) => e);
  t.match((unknown as Error).message, /nowhere\.test does not resolve/);
  // The system resolver (production's) is used without the test DNS server.
  undoResolve();
  const invalid = await safeFetch('http://quad-safe-fetch.invalid/').catch((e: unknown) => e);
  t.equal((invalid as SafeFetchError).reason, 'network');
  resolveWithDnsServerForTests(dns.server);
});

t.test('trusted (operator) URLs may be private; the rest of the rules hold', async (t) => {
  t.equal(servers.connections(), 0, 'no untrusted request ever reached loopback');
  const res = await safeFetch(`http://localhost:${port}/`, { trusted: true });
  t.equal(res.text(), 'canary');
  t.equal(((await safeFetch('file:///etc/passwd', { trusted: true }).catch((e: unknown) => e)) as SafeFetchError).reason, 'refused');
  t.equal(servers.connections(), 1, 'the trusted request did');
});
