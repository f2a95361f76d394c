// Store benchmark: storefront checkouts per second across 50 members (each with their own product), measured with
// autocannon from the parent while the server runs in a child process, against two baselines of the same run: a
// bare Fastify route, and "the floor" — a bare Fastify route that sends checkout's SQL with raw `pg` in one
// transaction (find the member, lock their balance, lock the product, lower its stock, write the order with its
// item, the notification and the ledger row, commit). Then the exactness run: members hold points for exactly N
// orders and fire 2N checkouts at once; it prints how many orders went through beyond a member's points (double
// spends, must be 0) and how many balances ended negative.
// Run: npm run bench:store [-- --rounds 3 --seconds 3 --connections 50]
import type autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { parseArgs } from 'node:util';
import { startStoreWorld } from '../../plugins/store/test/world.js';
import { measureTargets, median, ratio, serveTargets, type Target } from './harness.js';

const MEMBERS = 50;
/** Orders each member of the exactness run can pay for. */
const EXACT_N = 4;

interface Served {
  checkout: string; bare: string; floor: string; check: string;
  tokens: string[]; products: number[]; exactTokens: string[]; exactProduct: number;
}

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const w = await startStoreWorld({ teardown }, { config: { DATABASE_POOL_MAX: 10, LOG_LEVEL: 'info' } });
  await w.quad.api.listen({ port: 0, host: '127.0.0.1' });
  const newProduct = async (name: string, stock = 1_000_000) => {
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/products', token: w.officerToken, body: { name, price: 1, stock } });
    if (res.statusCode !== 201) throw new Error(`creating a product answered ${res.statusCode}: ${res.body}`);
    return res.json().id as number;
  };
  const member = async (email: string, points: number) => {
    await w.grant(await w.userId({ email }), points);
    return w.idpToken(email);
  };
  const tokens: string[] = [];
  const products: number[] = [];
  for (let i = 0; i < MEMBERS; i++) {
    tokens.push(await member(`m${i}@example.org`, 10_000_000));
    products.push(await newProduct(`P${i}`));
  }
  const exactTokens: string[] = [];
  for (let i = 0; i < MEMBERS; i++) exactTokens.push(await member(`exact${i}@example.org`, EXACT_N));
  const exactProduct = await newProduct('Exact');
  // Members become known to the org by a first order (as they would be after their first checkout).
  for (let i = 0; i < MEMBERS; i++) {
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token: tokens[i], body: { items: [{ product_id: products[i], quantity: 1, price: 1 }], total: 1 } });
    if (res.statusCode !== 201) throw new Error(`warm-up checkout answered ${res.statusCode}: ${res.body}`);
  }

  const bare = Fastify();
  bare.post('/checkout', async () => ({ order: { id: 1, total: 1, items: [] }, points_deducted: 1, balance: 0 }));

  // The floor: checkout's statements sent with raw pg, on a pool of the same size.
  const pool = new pg.Pool({ connectionString: w.quad.databaseUrl, max: 10 });
  teardown(() => pool.end());
  const orgId = w.org.id;
  const [{ maintained }] = (await pool.query(`select to_regclass('points_balances') is not null as maintained`)).rows;
  let turn = 0;
  bare.post('/floor', async () => {
    const i = turn++ % MEMBERS;
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows: [m] } = await client.query(
        `select u.id, pm.known_by_email from users u left join points_members pm on pm.user_id = u.id and pm.organization_id = $1 where u.email = $2`,
        [orgId, `m${i}@example.org`]);
      // Before the maintained balance existed: the member's lock, then the sum of their rows.
      if (!maintained) await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`points.member:${orgId}:${m.id}`]);
      const { rows: [b] } = await client.query(maintained
        ? `insert into points_balances (organization_id, user_id, balance) values ($1, $2, 0)
           on conflict (organization_id, user_id) do update set balance = points_balances.balance returning balance`
        : 'select coalesce(sum(amount), 0) as balance from points_entries where organization_id = $1 and user_id = $2', [orgId, m.id]);
      const { rows: [p] } = await client.query('select id, name, price, stock from products where organization_id = $1 and id = any($2) order by id for update', [orgId, [products[i]]]);
      if (Number(b.balance) < p.price) throw new Error('floor: balance');
      await client.query('update products set stock = stock - $1, updated_at = now() where id = $2 and organization_id = $3 and stock >= $1 returning stock', [1, p.id, orgId]);
      const { rows: [o] } = await client.query(
        `with o as (insert into orders (organization_id, user_id, total, channel, status, message) values ($1, $2, $3, 'storefront', 'pending', '') returning id, created_at, updated_at),
              i as (insert into order_items (organization_id, order_id, product_id, name, price, quantity)
                    select $1, o.id, x.product_id, x.name, x.price, x.quantity from o,
                      unnest($4::int[], $5::text[], $6::int[], $7::int[]) as x(product_id, name, price, quantity) returning id)
         select o.id, o.created_at, (select array_agg(id) from i) as items from o`,
        [orgId, m.id, p.price, [p.id], [p.name], [p.price], [1]]);
      await client.query(`insert into notifications (organization_id, category, kind, title, message, data) values ($1, 'event', 'order.created', $2, $3, $4::jsonb) returning id, created_at`,
        [orgId, `New order #${o.id}`, `1 × ${p.name}`, JSON.stringify({ order_id: o.id })]);
      await client.query(`insert into points_entries (organization_id, user_id, amount, source, reason, awarded_by, ref) values ($1, $2, $3, 'order', $4, 'bench', $5)`,
        [orgId, m.id, -p.price, `Order #${o.id}`, `order:${o.id}`]);
      await client.query('commit');
      return { order: { id: o.id }, balance: Number(b.balance) - p.price };
    } catch (err) {
      await client.query('rollback');
      throw err;
    } finally {
      client.release();
    }
  });

  // The exactness check: per member, their orders and the sum of their ledger rows.
  bare.get('/check', async () => {
    const { rows } = await pool.query(
      `select u.email, (select count(*) from orders o where o.organization_id = $1 and o.user_id = u.id)::int as orders,
              (select coalesce(sum(amount), 0) from points_entries e where e.organization_id = $1 and e.user_id = u.id)::int as balance
         from users u where u.email like 'exact%'`, [orgId]);
    return rows;
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => bare.close());
  const base = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
  return {
    checkout: `${w.quad.url || `http://127.0.0.1:${(w.quad.api.server.address() as { port: number }).port}`}/api/storefront/acm/checkout`,
    bare: `${base}/checkout`, floor: `${base}/floor`, check: `${base}/check`, tokens, products, exactTokens, exactProduct,
  };
}

const cart = (productId: number) => ({ items: [{ product_id: productId, quantity: 1, price: 1 }], total: 1 });

async function exactness(s: Served) {
  const checkoutUrl = s.checkout;
  const started = performance.now();
  const answers = await Promise.all(s.exactTokens.flatMap((token) => Array.from({ length: 2 * EXACT_N }, async () => {
    const res = await fetch(checkoutUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(cart(s.exactProduct)) });
    await res.arrayBuffer();
    return res.status;
  })));
  const seconds = (performance.now() - started) / 1000;
  const rows = await (await fetch(s.check)).json() as { email: string; orders: number; balance: number }[];
  const doubleSpends = rows.reduce((n, r) => n + Math.max(0, r.orders - EXACT_N), 0);
  const negative = rows.filter((r) => r.balance < 0).length;
  const short = rows.filter((r) => r.orders < EXACT_N).length;
  const count = (code: number) => answers.filter((a) => a === code).length;
  console.log(`exactness: ${MEMBERS} members with points for exactly ${EXACT_N} orders fire ${2 * EXACT_N} checkouts each at once ` +
    `(${answers.length} in ${seconds.toFixed(2)} s, ${(answers.length / seconds).toFixed(0)} answers/s): ${count(201)} × 201, ${count(400)} × 400, ` +
    `${answers.length - count(201) - count(400)} other`);
  console.log(`double spends: ${doubleSpends}   negative balances: ${negative}   members with fewer than ${EXACT_N} orders: ${short}`);
  if (doubleSpends || negative || answers.length - count(201) - count(400)) process.exitCode = 1;
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  parseArgs({ options: { seconds: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' } } });
  if (!process.argv.includes('--connections')) process.argv.push('--connections', String(MEMBERS));
  let served: Served | undefined;
  const rotate = (s: Served) => {
    let i = 0;
    return [{
      setupRequest: (req: autocannon.Request) => {
        const k = i++ % MEMBERS;
        return { ...req, headers: { ...req.headers, authorization: `Bearer ${s.tokens[k]}` }, body: JSON.stringify(cart(s.products[k]!)) };
      },
    }] as autocannon.Request[];
  };
  const r = await measureTargets<Served>(new URL(import.meta.url).pathname, (s): Target[] => {
    served = s;
    return [
      { label: `checkout, ${MEMBERS} members (POST /api/storefront/:org/checkout)`, url: s.checkout, method: 'POST', body: cart(s.products[0]!), requests: rotate(s) },
      { label: 'the floor: the same SQL in raw pg, one transaction', url: s.floor, method: 'POST', body: {} },
      { label: 'bare Fastify route', url: s.bare, method: 'POST', body: {} },
    ];
  }, (s) => exactness(s));
  const [store, floor, bare] = Object.values(r);
  console.log(`checkouts/s = ${median(store).toFixed(0)} (target ≥ 200)   checkout/floor = ${ratio(store, floor).toFixed(3)}   checkout/bare = ${ratio(store, bare).toFixed(3)}`);
  void served;
}
