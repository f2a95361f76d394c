// Checkout benchmark: checkouts per second for one member under contention (every order waits for the member's
// lock) and for many members in parallel. Boots the real core with the points and store plugins against a fresh
// database on the local PostgreSQL (as the tests do) and drives POST /api/storefront/<org>/checkout in-process.
//   npx tsx plugins/store/bench/checkout.ts [--orders 1000] [--concurrency 50] [--members 50] [--pool 10]
import { parseArgs } from 'node:util';
import { orgDb } from '@quad/core';
import { startStoreWorld } from '../test/world.js';

// `npx tap plugins/<m>` runs every file under the folder: a benchmark is not a test, so it bows out there.
if (process.env.TAP === '1' || process.env.TAP_CHILD_ID) {
  console.log('1..0 # SKIP a benchmark: run it with npx tsx');
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '50' },
    members: { type: 'string', default: '50' },
    pool: { type: 'string', default: '10' },
  },
});
const ORDERS = Number(values.orders);
const CONCURRENCY = Number(values.concurrency);
const MEMBERS = Number(values.members);

const teardowns: (() => unknown)[] = [];
const host = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

async function run() {
  const w = await startStoreWorld(host, { config: { DATABASE_POOL_MAX: Number(values.pool) } });
  const newProduct = async (name: string) => {
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/products', token: w.officerToken, body: { name, price: 1, stock: 1_000_000 } });
    return res.json().id as number;
  };
  const cart = (productId: number) => ({ items: [{ product_id: productId, quantity: 1, price: 1 }], total: 1 });
  const shared = cart(await newProduct('Shared'));

  async function member(email: string) {
    await w.grant(await w.userId({ email }), 1_000_000);
    return w.idpToken(email);
  }

  /** `ORDERS` checkouts, `CONCURRENCY` in flight; the i-th uses tokens[i % tokens.length] and bodies[i % bodies.length]. */
  async function drive(label: string, tokens: string[], bodies: ReturnType<typeof cart>[]) {
    let next = 0;
    let failed = 0;
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < ORDERS; i = next++) {
        const t0 = performance.now();
        const res = await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token: tokens[i % tokens.length], body: bodies[i % bodies.length] });
        latencies.push(performance.now() - t0);
        if (res.statusCode !== 201) { failed++; if (failed < 3) console.error(res.statusCode, res.body); }
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
    console.log(`${label}: ${ORDERS} checkouts, ${CONCURRENCY} at a time, ${tokens.length} member(s), ${bodies.length} product(s): ${(ORDERS / seconds).toFixed(0)} checkouts/s ` +
      `(${seconds.toFixed(2)} s; p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; failed ${failed})`);
  }

  // Warm up (JIT, JWKS cache, connection pool).
  const warm = await member('warm@example.org');
  await Promise.all(Array.from({ length: 20 }, () => w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token: warm, body: shared })));

  await drive('one member under contention', [await member('one@example.org')], [shared]);
  const many = await Promise.all(Array.from({ length: MEMBERS }, (_, i) => member(`m${i}@example.org`)));
  const own = await Promise.all(Array.from({ length: MEMBERS }, async (_, i) => cart(await newProduct(`P${i}`))));
  await drive('many members in parallel', many, own);
  await drive('many members, one product (its row lock serializes them)', many, [shared]);

  const db = orgDb(w.quad.emFor(w.org.id));
  const check = await db.one<{ orders: string; negative: string }>`
    select (select count(*) from orders where ${db.inOrg()}) as orders, (select count(*) from points_entries where ${db.inOrg()} and amount < 0) as negative`;
  console.log(`orders written: ${check!.orders}; negative points rows: ${check!.negative}; pool: DATABASE_POOL_MAX=${w.quad.settings.DATABASE_POOL_MAX}`);
}

try {
  await run();
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
