// The catalog (everyone reads, officers change it) and order management (status moves, messages, cancel refunds,
// delete), with every caller kind, and the store's dashboard contribution.
import t from 'tap';
import { withDb } from '@quad/core';
import { startStoreWorld } from './world.js';
import { allowedMoves } from '../index.js';

t.test('catalog', async (t) => {
  const w = await startStoreWorld(t);
  const officer = { token: w.officerToken };

  t.test('officers add, change and delete products', async (t) => {
    const add = await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: { name: ' Mug ', price: 40, stock: 3, category: 'Kitchen', image_url: 'https://cdn.example.org/mug.png', description: 'Holds coffee' } });
    t.equal(add.statusCode, 201, add.body);
    t.match(add.json(), { name: 'Mug', price: 40, stock: 3, category: 'Kitchen', image_url: 'https://cdn.example.org/mug.png', description: 'Holds coffee' });
    const id = add.json().id;
    const zero = await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: { name: 'Ghost', price: 1, stock: 0 } });
    t.match([zero.statusCode, zero.json().field], [400, 'body.stock'], 'a new product needs stock of 1 or more');
    for (const [body, field] of [[{ name: '', price: 1, stock: 1 }, 'body.name'], [{ name: 'X', price: -1, stock: 1 }, 'body.price'], [{ name: 'X', price: 1, stock: 1, image_url: 'javascript:alert(1)' }, 'body.image_url'], [{ name: 'X', price: 1, stock: 1, extra: true }, 'body']] as const) {
      const bad = await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body });
      t.match([bad.statusCode, bad.json().field], [400, field], JSON.stringify(body));
    }
    const blank = await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: { name: '   ', price: 1, stock: 1 } });
    t.match([blank.statusCode, blank.json().reason], [400, 'blank_name']);

    const change = await w.call({ method: 'PUT', url: `/api/storefront/acm/products/${id}`, ...officer, body: { price: 45, stock: 0, image_url: null } });
    t.equal(change.statusCode, 200);
    t.match(change.json(), { name: 'Mug', price: 45, stock: 0, image_url: null, category: 'Kitchen' }, 'fields left out stay; stock may go to 0');
    t.equal((await w.call({ method: 'PUT', url: `/api/storefront/acm/products/${id}`, ...officer, body: {} })).statusCode, 400);
    t.equal((await w.call({ method: 'PUT', url: '/api/storefront/acm/products/999999', ...officer, body: { price: 1 } })).statusCode, 404);
    t.equal((await w.call({ method: 'PUT', url: `/api/storefront/acm/products/${id}`, ...officer, body: { stock: -1 } })).statusCode, 400);

    const del = await w.call({ method: 'DELETE', url: `/api/storefront/acm/products/${id}`, ...officer });
    t.same(del.json(), { deleted: id });
    t.equal((await w.call({ method: 'DELETE', url: `/api/storefront/acm/products/${id}`, ...officer })).statusCode, 404);
    const audit = await w.sql<{ action: string }>("select action from audit_log where action like 'store.%' order by id");
    t.same(audit.map((a) => a.action), ['store.product_create', 'store.product_update', 'store.product_delete']);
  });

  t.test('everyone reads the catalog', async (t) => {
    const ids: number[] = [];
    for (const p of [{ name: 'Tee', price: 50, stock: 2, category: 'Clothes' }, { name: 'Cap', price: 30, stock: 1, category: 'Clothes' }, { name: 'Pin', price: 5, stock: 9 }]) {
      ids.push((await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: p })).json().id);
    }
    await w.call({ method: 'PUT', url: `/api/storefront/acm/products/${ids[1]}`, ...officer, body: { stock: 0 } });
    const all = await w.call({ url: '/api/storefront/acm/products' });
    t.equal(all.statusCode, 200);
    t.same(all.json().products.map((p: { name: string }) => p.name), ['Pin', 'Cap', 'Tee'], 'by category, then name');
    t.same((await w.call({ url: '/api/storefront/acm/products?in_stock=true&category=Clothes' })).json().products.map((p: { name: string }) => p.name), ['Tee']);
    const one = await w.call({ url: `/api/storefront/acm/products/${ids[0]}` });
    t.match(one.json(), { name: 'Tee', price: 50, stock: 2 });
    t.match([(await w.call({ url: '/api/storefront/acm/products/999999' })).statusCode], [404]);
    t.equal((await w.call({ url: '/api/storefront/acm/products/abc' })).statusCode, 400);
    const store = await w.call({ url: '/api/storefront/acm/store' });
    t.same(store.json().products.map((p: { name: string }) => p.name), ['Pin', 'Tee'], 'the store page lists products in stock');
    t.same(store.json().categories, ['Clothes']);
    t.same(store.json().org, { prefix: 'acm', name: 'ACM' });
    t.equal((await w.call({ url: '/api/storefront/acm/store', token: await w.idpToken('anyone@example.org') })).statusCode, 200, 'a token does not hurt');
    t.equal((await w.call({ url: '/api/storefront/nope/store' })).statusCode, 404);
  });

  t.test('every route is in the OpenAPI document', async (t) => {
    const res = await w.call({ url: '/openapi.json' });
    t.equal(res.statusCode, 200, res.body.slice(0, 200));
    const paths = Object.keys(res.json().paths ?? {});
    const wanted = [
      '/api/storefront/{org}/products', '/api/storefront/{org}/products/{id}', '/api/storefront/{org}/store',
      '/api/storefront/{org}/orders', '/api/storefront/{org}/orders/{email}', '/api/storefront/{org}/members/store',
      '/api/storefront/{org}/members/points', '/api/storefront/{org}/members/orders', '/api/storefront/{org}/checkout',
      '/api/storefront/{org}/wallet/{email}', '/api/points/{org}/awards', '/api/points/{org}/checkins', '/api/points/{org}/events',
      '/api/points/{org}/events/{name}', '/api/points/{org}/members', '/api/points/{org}/members/{user_id}/entries',
      '/api/points/{org}/leaderboard', '/api/points/{org}/public/leaderboard', '/api/points/{org}/public/members',
    ];
    for (const path of wanted) t.ok(paths.includes(path), path);
    t.ok(paths.some((p) => /^\/api\/storefront\/\{org\}\/orders\/\{id\}/.test(p)), 'GET /orders/<id> is documented');
  });

  t.test('catalog changes refuse everyone but the org\'s officers', async (t) => {
    const strangerToken = await w.strangerOfficerToken();
    const idpToken = await w.idpToken('anyone@example.org');
    const [{ id }] = await w.sql<{ id: number }>('select id from products order by id limit 1');
    const routes = [
      ['POST', '/api/storefront/acm/products', { name: 'Evil', price: 1, stock: 1 }],
      ['PUT', `/api/storefront/acm/products/${id}`, { price: 0 }],
      ['DELETE', `/api/storefront/acm/products/${id}`, undefined],
      ['GET', '/api/storefront/acm/orders', undefined],
      ['GET', '/api/storefront/acm/orders/1', undefined],
      ['PUT', '/api/storefront/acm/orders/1', { status: 'cancelled' }],
      ['DELETE', '/api/storefront/acm/orders/1', undefined],
    ] as const;
    const [before] = await w.sql('select (select count(*) from products) as p, (select sum(price) from products) as s');
    for (const [method, url, body] of routes) {
      t.equal((await w.call({ method, url, body })).statusCode, 401, `${method} ${url}: no token`);
      t.equal((await w.call({ method, url, body, cookie: w.memberCookie })).statusCode, 401, `${method} ${url}: member session`);
      t.equal((await w.call({ method, url, body, token: idpToken })).statusCode, 401, `${method} ${url}: identity-provider token`);
      const foreign = await w.call({ method, url, body, token: strangerToken });
      t.match([foreign.statusCode, foreign.json().reason], [403, 'not_org_officer'], `${method} ${url}: officer of another org`);
    }
    t.same((await w.sql('select (select count(*) from products) as p, (select sum(price) from products) as s'))[0], before);
  });
});

t.test('orders: status moves, messages, cancel and delete', async (t) => {
  const w = await startStoreWorld(t);
  const officer = { token: w.officerToken };
  const pid = (await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: { name: 'Tee', price: 50, stock: 10 } })).json().id;
  const email = 'buyer@example.org';
  const user = await w.userId({ email });
  await w.grant(user, 1000);
  const token = await w.idpToken(email);
  const order = async (quantity = 1) => {
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token, body: { items: [{ product_id: pid, quantity, price: 50 }], total: 50 * quantity } });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json().order.id as number;
  };
  const move = (id: number, body: Record<string, unknown>) => w.call({ method: 'PUT', url: `/api/storefront/acm/orders/${id}`, ...officer, body });
  const stock = async () => (await w.sql<{ stock: number }>('select stock from products where id = ?', [pid]))[0]!.stock;

  t.test('the allowed moves', async (t) => {
    t.same(allowedMoves('pending'), ['processing', 'shipped', 'delivered', 'cancelled']);
    t.same(allowedMoves('processing'), ['shipped', 'delivered', 'cancelled']);
    t.same(allowedMoves('shipped'), ['delivered', 'cancelled']);
    t.same(allowedMoves('delivered'), []);
    t.same(allowedMoves('cancelled'), []);
  });

  t.test('forward along pending → processing → shipped → delivered, with a message to the member', async (t) => {
    const id = await order();
    const processing = await move(id, { status: 'processing', message: 'Packing it now' });
    t.equal(processing.statusCode, 200, processing.body);
    t.match(processing.json(), { from: 'pending', refunded: 0, order: { status: 'processing', message: 'Packing it now', member: { email } } });
    t.match((await move(id, { status: 'shipped' })).json().order, { status: 'shipped', message: 'Packing it now' }, 'the message stays');
    t.match((await move(id, { message: 'Tracking: 123' })).json().order, { status: 'shipped', message: 'Tracking: 123' }, 'a message alone');
    t.match((await move(id, { status: 'delivered' })).json().order, { status: 'delivered' });
    const mine = await w.call({ url: `/api/storefront/acm/orders/${email}`, token });
    t.match(mine.json().orders.find((o: { id: number }) => o.id === id), { status: 'delivered', message: 'Tracking: 123' }, 'the member reads status and message');
    for (const to of ['pending', 'processing', 'shipped', 'cancelled']) {
      const res = await move(id, { status: to });
      t.match([res.statusCode, res.json()], [409, { reason: 'order_status_move', from: 'delivered', to, allowed: [] }], `delivered → ${to}`);
    }
    const skip = await order();
    t.match((await move(skip, { status: 'delivered' })).json().order, { status: 'delivered' }, 'skipping steps forward is allowed (handed over in person)');
    const back = await order();
    await move(back, { status: 'shipped' });
    const res = await move(back, { status: 'processing' });
    t.match([res.statusCode, res.json().reason], [409, 'order_status_move'], 'no moving back');
  });

  t.test('cancelling gives the points back and puts the stock back; only once', async (t) => {
    const id = await order(2);
    await move(id, { status: 'processing' });
    const balance = await w.balance(user);
    const stockBefore = await stock();
    const res = await move(id, { status: 'cancelled', message: 'Out of that size, sorry' });
    t.match(res.json(), { from: 'processing', refunded: 100, order: { status: 'cancelled', message: 'Out of that size, sorry' } });
    t.equal(await w.balance(user), balance + 100);
    t.equal(await stock(), stockBefore + 2);
    const [refund] = await w.sql('select amount, source, ref from points_entries where ref = ? and amount > 0', [`order:${id}`]);
    t.same(refund, { amount: 100, source: 'refund', ref: `order:${id}` });
    const again = await move(id, { status: 'cancelled' });
    t.match([again.statusCode], [200], 'cancelled → cancelled is no move');
    t.equal(again.json().refunded, 0);
    t.equal(await w.balance(user), balance + 100, 'no second refund');
    t.match([(await move(id, { status: 'pending' })).statusCode], [409], 'cancelled is final');
    const shipped = await order();
    await move(shipped, { status: 'shipped' });
    t.match((await move(shipped, { status: 'cancelled' })).json(), { from: 'shipped', refunded: 50 }, 'cancelled from shipped');
  });

  t.test('parallel cancels refund once', async (t) => {
    const id = await order();
    const balance = await w.balance(user);
    const res = await Promise.all(Array.from({ length: 10 }, () => move(id, { status: 'cancelled' })));
    t.ok(res.every((r) => r.statusCode === 200));
    t.equal(res.filter((r) => r.json().refunded === 50).length, 1);
    t.equal(await w.balance(user), balance + 50);
  });

  t.test('deleting does not give points back', async (t) => {
    const id = await order();
    const balance = await w.balance(user);
    const stockBefore = await stock();
    const del = await w.call({ method: 'DELETE', url: `/api/storefront/acm/orders/${id}`, ...officer });
    t.same(del.json(), { deleted: id });
    t.equal(await w.balance(user), balance);
    t.equal(await stock(), stockBefore);
    t.same(await w.sql('select 1 from order_items where order_id = ?', [id]), [], 'its items are gone');
    t.equal((await w.call({ url: `/api/storefront/acm/orders/${id}`, ...officer })).statusCode, 404);
    t.equal((await w.call({ method: 'DELETE', url: `/api/storefront/acm/orders/${id}`, ...officer })).statusCode, 404);
    t.equal((await move(id, { status: 'processing' })).statusCode, 404);
  });

  t.test('officers list and read orders; bad moves are 400', async (t) => {
    const list = await w.call({ url: '/api/storefront/acm/orders', ...officer });
    t.equal(list.statusCode, 200);
    const { orders, total } = list.json();
    t.equal(total, orders.length);
    t.ok(orders.every((o: { member: { email: string } }) => o.member.email === email));
    t.ok(orders[0].id > orders[orders.length - 1].id, 'newest first');
    const cancelled = await w.call({ url: '/api/storefront/acm/orders?status=cancelled', ...officer });
    t.ok(cancelled.json().orders.length >= 3);
    t.ok(cancelled.json().orders.every((o: { status: string }) => o.status === 'cancelled'));
    const paged = await w.call({ url: '/api/storefront/acm/orders?per_page=2&page=2', ...officer });
    t.same(paged.json().orders.map((o: { id: number }) => o.id), orders.slice(2, 4).map((o: { id: number }) => o.id));
    const one = await w.call({ url: `/api/storefront/acm/orders/${orders[0].id}`, ...officer });
    t.match(one.json(), { id: orders[0].id, items: [{ product_id: pid, name: 'Tee', price: 50 }] });
    t.match([(await move(orders[0].id, { status: 'lost' })).statusCode], [400]);
    t.match([(await move(orders[0].id, {})).statusCode], [400]);
    await w.call({ method: 'DELETE', url: `/api/storefront/acm/products/${pid}`, ...officer });
    const kept = await w.call({ url: `/api/storefront/acm/orders/${orders[0].id}`, ...officer });
    t.match(kept.json().items, [{ product_id: null, name: 'Tee', price: 50 }], 'orders keep a deleted product\'s name and price');
  });

  t.test('dashboard: overview counts and orders per day', async (t) => {
    const mod = w.quad.registry.get('store')!;
    // The section's EntityManager as the dashboard hands it: the service's, bound to the org.
    const em = w.quad.emFor(w.org.id);
    const org = (await w.quad.orgs.find('acm'))!;
    const [c] = await w.sql<Record<string, string>>(`select count(*) as orders, count(*) filter (where status in ('pending','processing','shipped')) as open,
      coalesce(sum(total) filter (where status <> 'cancelled'), 0) as spent from orders`);
    t.same(await mod.dashboard!.overview!(withDb({ em, org, services: w.quad.services })), {
      products: 0, products_in_stock: 0, products_out_of_stock: 0,
      orders: Number(c!.orders), open_orders: Number(c!.open), pending_orders: Number(c!.open) - 1, points_spent: Number(c!.spent),
    });
    const today = new Date(); today.setUTCHours(0, 0, 0, 0);
    const series = await mod.dashboard!.trends!(withDb({ em, org, services: w.quad.services }), { since: new Date(today.getTime() - 29 * 86_400_000), days: 30 });
    const orders = series.find((s) => s.key === 'store.orders')!;
    t.equal(orders.values.length, 30);
    t.equal(orders.values[29], Number(c!.orders), 'all today');
    t.equal(orders.values.slice(0, 29).reduce((a, b) => a + b, 0), 0);
  });

  t.test('the maintained order counters (store_member_orders) equal the orders after checkouts, moves, cancels, deletes and raw writes', async (t) => {
    const drift = () => w.sql(`select coalesce(c.user_id, o.user_id) as user, coalesce(c.status, o.status) as status, c.orders, c.points, o.n, o.total
        from store_member_orders c
        full join (select organization_id, user_id, status, count(*)::int as n, sum(total)::int as total from orders group by 1, 2, 3) o
          on o.organization_id = c.organization_id and o.user_id = c.user_id and o.status = c.status
       where (coalesce(c.orders, 0), coalesce(c.points, 0)) is distinct from (coalesce(o.n, 0), coalesce(o.total, 0))`);
    t.same(await drift(), [], 'after the tests above');
    const mug = (await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: { name: 'Mug', price: 5, stock: 10 } })).json().id;
    const buy = async (quantity: number) => (await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token, body: { items: [{ product_id: mug, quantity, price: 5 }], total: 5 * quantity } })).json().order.id as number;
    const a = await buy(1);
    const b = await buy(2);
    t.equal((await move(a, { status: 'shipped' })).statusCode, 200);
    t.equal((await move(b, { status: 'cancelled' })).statusCode, 200);
    t.same(await drift(), [], 'after a move and a cancel');
    await w.sql(`update orders set total = total + 1, user_id = ? where id = ?`, [await w.userId({ email: 'other@example.org' }), a]);
    await w.sql('delete from orders where id = ?', [b]);
    t.same(await drift(), [], 'after raw updates and deletes');
    const list = await w.call({ url: '/api/storefront/acm/orders?per_page=1', ...officer });
    const [n] = await w.sql<{ n: number }>('select count(*)::int as n from orders');
    t.equal(list.json().total, n!.n, 'the officers\' list totals every order of the org from the counters');
    const shipped = await w.call({ url: '/api/storefront/acm/orders?status=shipped', ...officer });
    t.equal(shipped.json().total, shipped.json().orders.length);
  });
});

t.test('the store needs the points module', async (t) => {
  const w = await startStoreWorld(t);
  const res = await w.call({ method: 'PUT', url: '/api/organizations/acm/modules', token: w.officerToken, body: { modules: { points: false } } });
  t.match([res.statusCode, res.json().reason], [409, 'needed_by']);
  const both = await w.call({ method: 'PUT', url: '/api/organizations/acm/modules', token: w.officerToken, body: { modules: { points: false, store: false } } });
  t.equal(both.statusCode, 200);
  const off = await w.call({ url: '/api/storefront/acm/store' });
  t.match([off.statusCode, off.json().reason], [404, 'module_off']);
  const onlyStore = await w.call({ method: 'PUT', url: '/api/organizations/acm/modules', token: w.officerToken, body: { modules: { store: true } } });
  t.match([onlyStore.statusCode, onlyStore.json().reason], [409, 'needs_missing']);
});
