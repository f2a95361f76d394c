// Growth benchmark: does a request cost more as an org's history grows? The server (the core with the points and
// store modules) runs in a child process; the parent measures p50 of the officers' orders list, the dashboard
// overview and a storefront checkout, one request at a time, with 1,000 and then 100,000 rows of history in the org
// (orders with their items and points rows, spread over the past year), and prints the ratio of the two columns
// (target ≤ 1.5).
// Run: npm run bench:growth [-- --requests 200]
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { startStoreWorld } from '../../plugins/store/test/world.js';
import { serveTargets, withServer } from './harness.js';

const SIZES = [1_000, 100_000];

interface Served { api: string; control: string; officer: string; member: string; product: number }

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const w = await startStoreWorld({ teardown }, { config: { DATABASE_POOL_MAX: 10, LOG_LEVEL: 'info' } });
  await w.quad.api.listen({ port: 0, host: '127.0.0.1' });
  const created = await w.call({ method: 'POST', url: '/api/storefront/acm/products', token: w.officerToken, body: { name: 'Mug', price: 1, stock: 1_000_000 } });
  const product = created.json().id as number;
  const buyer = await w.userId({ email: 'buyer@example.org' });
  await w.grant(buyer, 1_000_000);
  const member = await w.idpToken('buyer@example.org');
  const others = await Promise.all(Array.from({ length: 100 }, (_, i) => w.userId({ email: `h${i}@example.org` })));
  let rows = 0;

  // History: `n` more orders (one item each) and `n` more points rows, of 100 members, over the past year.
  const grow = async (n: number) => {
    const orgId = w.org.id;
    await w.sql(`insert into points_members (organization_id, user_id, known_by_email) select ?, u, true from unnest(?::int[]) u on conflict do nothing`,
      [orgId, `{${others.join(',')}}`]);
    await w.sql(
      `with o as (
         insert into orders (organization_id, user_id, total, status, channel, created_at, updated_at)
         select ?, (?::int[])[1 + g % 100], 1 + g % 5, (array['pending','processing','shipped','delivered','cancelled'])[1 + g % 5], 'storefront',
                now() - make_interval(secs => 31536000.0 * g / ?), now() - make_interval(secs => 31536000.0 * g / ?)
           from generate_series(1, ?) g returning id, total)
       insert into order_items (organization_id, order_id, product_id, name, price, quantity) select ?, id, ?, 'Mug', total, 1 from o`,
      [orgId, `{${others.join(',')}}`, n, n, n, orgId, product]);
    await w.sql(
      `insert into points_entries (organization_id, user_id, amount, source, reason, event_name, awarded_by, created_at)
       select ?, (?::int[])[1 + g % 100], case when g % 4 = 0 then -1 else 2 end, case when g % 4 = 0 then 'order' else 'award' end,
              'history', case when g % 4 = 1 then 'Event ' || (g % 300) end, 'system', now() - make_interval(secs => 31536000.0 * g / ?)
         from generate_series(1, ?) g`, [orgId, `{${others.join(',')}}`, n, n]);
    await w.sql('analyze');
    rows += n;
  };

  const control = Fastify();
  control.post<{ Body: { to: number } }>('/grow', async (request) => {
    await grow(request.body.to - rows);
    return { rows };
  });
  await control.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => control.close());
  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  return { api: `http://127.0.0.1:${port(w.quad.api)}`, control: `http://127.0.0.1:${port(control)}`, officer: w.officerToken, member, product };
}

async function p50(requests: number, send: () => Promise<Response>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < requests + 20; i++) {
    const t0 = performance.now();
    const res = await send();
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${res.status} ${res.url}`);
    if (i >= 20) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '200' } } });
  const requests = Number(values.requests);
  await withServer<Served, void>(new URL(import.meta.url).pathname, async (s) => {
    const officer = { authorization: `Bearer ${s.officer}` };
    const paths: [string, () => Promise<Response>][] = [
      ['orders list (officer, first page of 100)', () => fetch(`${s.api}/api/storefront/acm/orders`, { headers: officer })],
      ['dashboard overview', () => fetch(`${s.api}/api/dashboard/acm/overview`, { headers: officer })],
      ['checkout (one item)', () => fetch(`${s.api}/api/storefront/acm/checkout`, {
        method: 'POST', headers: { authorization: `Bearer ${s.member}`, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ product_id: s.product, quantity: 1, price: 1 }], total: 1 }),
      })],
    ];
    const columns: number[][] = [];
    for (const size of SIZES) {
      await fetch(`${s.control}/grow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: size }) });
      const column: number[] = [];
      for (const [, send] of paths) column.push(await p50(requests, send));
      columns.push(column);
    }
    console.log(`p50 in ms, ${requests} requests one at a time, by rows of history in the org (orders and points rows each)`);
    console.log(`${''.padEnd(44)}${SIZES.map((n) => `${n.toLocaleString('en')} rows`.padStart(14)).join('')}     ratio`);
    paths.forEach(([label], i) => {
      const [small, big] = [columns[0]![i]!, columns[1]![i]!];
      console.log(`${label.padEnd(44)}${small.toFixed(2).padStart(14)}${big.toFixed(2).padStart(14)}${(big / small).toFixed(2).padStart(10)}${big / small > 1.5 ? '  (over 1.5)' : ''}`);
    });
  });
}
