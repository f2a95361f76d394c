// Checkout through both doors (POST /checkout with an identity-provider token, POST /members/orders with a
// Discord session): the spec's steps, each failure leaving nothing written, and the concurrency guarantees.
import t from 'tap';
import { startStoreWorld, type StoreWorld } from './world.js';

async function product(w: StoreWorld, fields: { name?: string; price: number; stock: number; category?: string }): Promise<number> {
  const res = await w.call({ method: 'POST', url: '/api/storefront/acm/products', token: w.officerToken, body: { name: fields.name ?? 'Thing', ...fields } });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().id;
}

/** Orders, order items, points rows, total stock and members: what a failed checkout must leave as it was. */
async function snapshot(w: StoreWorld) {
  const [row] = await w.sql<Record<string, string>>(`select
      (select count(*) from orders) as orders, (select count(*) from order_items) as items,
      (select count(*) from users) as users, (select count(*) from points_members) as members,
      (select count(*) from points_entries) as entries, (select coalesce(sum(stock), 0) from products) as stock,
      (select count(*) from notifications where kind = 'order.created') as events`);
  return row;
}

t.test('checkout', async (t) => {
  const w = await startStoreWorld(t);
  const shopper = 'shopper@example.org';
  const shopperId = await w.userId({ email: shopper });
  await w.grant(shopperId, 300);
  const token = await w.idpToken(shopper);
  const shirt = await product(w, { name: 'Shirt', price: 100, stock: 5, category: 'Clothes' });
  const sticker = await product(w, { name: 'Sticker', price: 10, stock: 50 });

  t.test('storefront member: 201 with points_deducted, order, items, event and the negative row', async (t) => {
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token, body: { items: [{ product_id: shirt, quantity: 1, price: 100 }, { product_id: sticker, quantity: 3, price: 10 }], total: 130 } });
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.match(body, { points_deducted: 130, balance: 170, order: { status: 'pending', total: 130, channel: 'storefront', user_id: shopperId, message: '' } });
    t.same(body.order.items, [{ product_id: shirt, name: 'Shirt', price: 100, quantity: 1 }, { product_id: sticker, name: 'Sticker', price: 10, quantity: 3 }]);
    t.equal(await w.balance(shopperId), 170);
    const [row] = await w.sql('select amount, source, ref from points_entries where user_id = ? and amount < 0', [shopperId]);
    t.same(row, { amount: -130, source: 'order', ref: `order:${body.order.id}` });
    const [event] = await w.sql("select kind, title, data from notifications where kind = 'order.created' and organization_id = ?", [w.org.id]);
    t.match(event, { kind: 'order.created', title: `New order #${body.order.id} from ${shopper}`, data: { order_id: body.order.id, total: 130 } });
    const stock = await w.sql<{ id: number; stock: number }>('select id, stock from products order by id');
    t.same(stock.map((p) => p.stock), [4, 47]);
  });

  t.test('member with a Discord session: POST /members/orders', async (t) => {
    const bob = await w.userId({ chatUserId: w.member.id });
    await w.grant(bob, 50);
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/members/orders', cookie: w.memberCookie, body: { items: [{ product_id: sticker, quantity: 2, price: 10 }], total: 20 } });
    t.equal(res.statusCode, 201, res.body);
    t.match(res.json(), { points_deducted: 20, balance: 30, order: { channel: 'member', user_id: bob } });
    const mine = await w.call({ url: '/api/storefront/acm/members/orders', cookie: w.memberCookie });
    t.same(mine.json().orders.map((o: { id: number }) => o.id), [res.json().order.id]);
    const points = await w.call({ url: '/api/storefront/acm/members/points', cookie: w.memberCookie });
    t.match(points.json(), { chat_user_id: w.member.id, balance: 30, entries: [{ amount: -20, source: 'order' }, { amount: 50 }] });
    const store = await w.call({ url: '/api/storefront/acm/members/store', cookie: w.memberCookie });
    t.match(store.json(), { balance: 30, org: { prefix: 'acm' }, categories: ['Clothes'] });
  });

  t.test('every failure leaves no order, no points row and no stock change', async (t) => {
    const poor = 'poor@example.org';
    await w.grant(await w.userId({ email: poor }), 50);
    const poorToken = await w.idpToken(poor);
    const before = await snapshot(w);
    const post = (body: unknown, as = token) => w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token: as, body });

    const low = await post({ items: [{ product_id: shirt, quantity: 1, price: 100 }], total: 100 }, poorToken);
    t.match([low.statusCode, low.json()], [400, { reason: 'insufficient_points', balance: 50, total: 100 }], 'balance too low: 400');
    const lowByCatalog = await post({ items: [{ product_id: shirt, quantity: 1, price: 1 }], total: 1 }, poorToken);
    t.equal(lowByCatalog.statusCode, 400, 'the balance is checked against catalog prices, not the client\'s');

    const stock = await post({ items: [{ product_id: sticker, quantity: 1, price: 10 }, { product_id: shirt, quantity: 5, price: 100 }], total: 510 });
    t.equal(stock.statusCode, 400, 'the balance comes first (510 > 170)');
    await w.grant(shopperId, 1000);
    const before2 = await snapshot(w);
    const noStock = await post({ items: [{ product_id: sticker, quantity: 1, price: 10 }, { product_id: shirt, quantity: 5, price: 100 }], total: 510 });
    t.match([noStock.statusCode, noStock.json()], [409, { reason: 'out_of_stock', product_id: shirt, available: 4, requested: 5 }], 'not enough stock: 409, and the sticker\'s stock is put back');

    const price = await post({ items: [{ product_id: shirt, quantity: 1, price: 90 }], total: 90 });
    t.match([price.statusCode, price.json()], [409, { reason: 'checkout_price_mismatch', items: [{ product_id: shirt, price: 90, catalog_price: 100 }], catalog_total: 100 }]);
    const total = await post({ items: [{ product_id: shirt, quantity: 1, price: 100 }], total: 99 });
    t.match([total.statusCode, total.json()], [409, { reason: 'checkout_price_mismatch', items: [], total: 99, catalog_total: 100 }], 'a wrong total is a mismatch too');

    const unknown = await post({ items: [{ product_id: 999999, quantity: 1, price: 1 }], total: 1 });
    t.match([unknown.statusCode, unknown.json()], [404, { reason: 'product_not_found', product_ids: [999999] }]);
    const dup = await post({ items: [{ product_id: shirt, quantity: 1, price: 100 }, { product_id: shirt, quantity: 1, price: 100 }], total: 200 });
    t.match([dup.statusCode, dup.json().reason], [400, 'duplicate_item']);
    const empty = await post({ items: [], total: 0 });
    t.match([empty.statusCode, empty.json().field], [400, 'body.items']);
    const zeroQty = await post({ items: [{ product_id: shirt, quantity: 0, price: 100 }], total: 0 });
    t.match([zeroQty.statusCode, zeroQty.json().field], [400, 'body.items.0.quantity']);
    // A first-time buyer refused: their member row is written in the order's transaction, so it goes with it.
    const newcomer = await w.idpToken('newcomer@example.org');
    const missing = await post({ items: [{ product_id: 999999, quantity: 1, price: 1 }], total: 1 }, newcomer);
    t.match([missing.statusCode, missing.json().reason], [404, 'product_not_found']);
    const broke = await post({ items: [{ product_id: shirt, quantity: 1, price: 100 }], total: 100 }, newcomer);
    t.match([broke.statusCode, broke.json()], [400, { reason: 'insufficient_points', balance: 0 }]);
    t.same(await w.sql('select id from users where email = ?', ['newcomer@example.org']), [], 'no users row for the refused newcomer');
    t.same(await snapshot(w), before2, 'nothing written by any failure');
    t.same({ ...before2, entries: before.entries }, before);
  });

  t.test("another org's product is not in this store", async (t) => {
    const guild = w.discord.addGuild({ name: 'Other' });
    const other = await w.quad.createOrg({ prefix: 'other', discordGuildId: guild.id, modules: { points: true, store: true } });
    await w.sql(`insert into products (organization_id, name, price, stock) values (?, 'Foreign', 1, 5)`, [other.id]);
    const [{ id: foreign }] = await w.sql<{ id: number }>(`select id from products where name = 'Foreign'`);
    const before = await snapshot(w);
    const res = await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token, body: { items: [{ product_id: foreign!, quantity: 1, price: 1 }], total: 1 } });
    t.match([res.statusCode, res.json().reason], [404, 'product_not_found'], 'another org\'s product is not in this store');
    t.same(await snapshot(w), before);
  });

  t.test('storefront routes: own wallet and orders only; identity-provider tokens only', async (t) => {
    const wallet = await w.call({ url: `/api/storefront/acm/wallet/${encodeURIComponent('Shopper@Example.org')}`, token });
    t.equal(wallet.statusCode, 200);
    t.match(wallet.json(), { email: shopper, balance: await w.balance(shopperId), entries: [{ amount: 1000 }, { amount: -130, source: 'order' }, { amount: 300 }] });
    const orders = await w.call({ url: `/api/storefront/acm/orders/${shopper}`, token });
    t.match(orders.json(), { email: shopper, total: 1, orders: [{ total: 130, channel: 'storefront' }] });
    const other = await w.call({ url: '/api/storefront/acm/wallet/poor@example.org', token });
    t.match([other.statusCode, other.json().reason], [403, 'not_your_email']);
    t.equal((await w.call({ url: '/api/storefront/acm/orders/poor@example.org', token })).statusCode, 403);
    const fresh = await w.call({ url: '/api/storefront/acm/wallet/new@example.org', token: await w.idpToken('new@example.org') });
    t.same(fresh.json(), { email: 'new@example.org', balance: 0, entries: [] }, 'a member with no rows');
    const none = await w.call({ url: '/api/storefront/acm/orders/new@example.org', token: await w.idpToken('new@example.org') });
    t.same(none.json().orders, []);
    for (const [method, url] of [['POST', '/api/storefront/acm/checkout'], ['GET', `/api/storefront/acm/wallet/${shopper}`], ['GET', `/api/storefront/acm/orders/${shopper}`]] as const) {
      const body = method === 'POST' ? { items: [{ product_id: sticker, quantity: 1, price: 10 }], total: 10 } : undefined;
      t.equal((await w.call({ method, url, body })).statusCode, 401, `${url}: no token`);
      t.equal((await w.call({ method, url, body, cookie: w.memberCookie })).statusCode, 401, `${url}: a session is not a token`);
      const officer = await w.call({ method, url, body, token: w.officerToken });
      t.match([officer.statusCode, officer.json().reason], [403, 'storefront_token_required'], `${url}: an officer token`);
      t.equal((await w.call({ method, url, body, token: await w.idp.issueToken(w.idp.addUser({ emails: ['x@y.org'] }).id, { expiresIn: -120 }) })).statusCode, 403, `${url}: an expired token`);
    }
  });

  t.test('member routes need a session of a member of the org\'s server', async (t) => {
    const outsider = w.discord.addUser({ username: 'outsider' });
    const outsiderCookie = await w.sessionOf(outsider);
    const routes = [['GET', '/api/storefront/acm/members/store'], ['GET', '/api/storefront/acm/members/points'], ['GET', '/api/storefront/acm/members/orders'], ['POST', '/api/storefront/acm/members/orders']] as const;
    const before = await snapshot(w);
    for (const [method, url] of routes) {
      const body = method === 'POST' ? { items: [{ product_id: sticker, quantity: 1, price: 10 }], total: 10 } : undefined;
      t.equal((await w.call({ method, url, body })).statusCode, 401, `${method} ${url}: no session`);
      t.equal((await w.call({ method, url, body, token: w.officerToken })).statusCode, 401, `${method} ${url}: a token is not a session`);
      t.equal((await w.call({ method, url, body, cookie: 'quad_session=forged' })).statusCode, 401, `${method} ${url}: a forged cookie`);
      const res = await w.call({ method, url, body, cookie: outsiderCookie });
      t.match([res.statusCode, res.json().reason], [403, 'not_member'], `${method} ${url}: not on the server`);
    }
    t.same(await snapshot(w), before);
  });
});

t.test('concurrency: 50 parallel checkouts of a 100-point item with 300 points make exactly 3 orders', async (t) => {
  const w = await startStoreWorld(t);
  const item = await product(w, { name: 'Hoodie', price: 100, stock: 1000 });
  const email = 'rush@example.org';
  const user = await w.userId({ email });
  await w.grant(user, 300);
  const token = await w.idpToken(email);
  const results = await Promise.all(Array.from({ length: 50 }, () => w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token, body: { items: [{ product_id: item, quantity: 1, price: 100 }], total: 100 } })));
  const codes = results.map((r) => r.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 3, 'three orders');
  t.equal(codes.filter((c) => c === 400).length, 47, 'the rest: balance too low');
  t.equal(await w.balance(user), 0, '0 points left');
  t.same((await w.sql<{ n: string }>('select count(*) as n from orders where user_id = ?', [user]))[0]!.n, '3');
  t.same((await w.sql<{ stock: number }>('select stock from products where id = ?', [item]))[0]!.stock, 997);
  const balances = results.filter((r) => r.statusCode === 201).map((r) => r.json().balance).sort();
  t.same(balances, [0, 100, 200], 'each order saw the balance the one before it left');

  t.test('the same through the session door and the storefront door at once', async (t) => {
    const bob = await w.userId({ chatUserId: w.member.id });
    await w.grant(bob, 300);
    const res = await Promise.all(Array.from({ length: 20 }, () => w.call({ method: 'POST', url: '/api/storefront/acm/members/orders', cookie: w.memberCookie, body: { items: [{ product_id: item, quantity: 1, price: 100 }], total: 100 } })));
    t.equal(res.filter((r) => r.statusCode === 201).length, 3);
    t.equal(await w.balance(bob), 0);
  });
});

t.test('concurrency: parallel orders for the last unit of stock make exactly one order', async (t) => {
  const w = await startStoreWorld(t);
  const last = await product(w, { name: 'Last one', price: 10, stock: 1 });
  const buyers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const email = `buyer${i}@example.org`;
    await w.grant(await w.userId({ email }), 100);
    return w.idpToken(email);
  }));
  const results = await Promise.all(buyers.map((token) => w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token, body: { items: [{ product_id: last, quantity: 1, price: 10 }], total: 10 } })));
  t.equal(results.filter((r) => r.statusCode === 201).length, 1, 'one order');
  t.ok(results.filter((r) => r.statusCode !== 201).every((r) => r.statusCode === 409 && r.json().reason === 'out_of_stock'), 'the others: out of stock');
  t.equal((await w.sql<{ stock: number }>('select stock from products where id = ?', [last]))[0]!.stock, 0, 'never below zero');
  t.equal((await w.sql<{ n: string }>('select count(*) as n from orders'))[0]!.n, '1');
  t.equal((await w.sql<{ n: string }>('select count(*) as n from points_entries where amount < 0'))[0]!.n, '1', 'one member paid');
});
