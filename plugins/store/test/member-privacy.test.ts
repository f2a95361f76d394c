// Officers' order views name the buyer only as this org knows them (through the points ledger): the core `users`
// row is shared by every org, so an email or Discord identity the org never learned is null there.
import t from 'tap';
import { startStoreWorld } from './world.js';

t.test('order views show the buyer as the org knows them', async (t) => {
  const w = await startStoreWorld(t);
  const officer = { token: w.officerToken };
  const pid = (await w.call({ method: 'POST', url: '/api/storefront/acm/products', ...officer, body: { name: 'Pin', price: 0, stock: 10 } })).json().id;
  const cart = { items: [{ product_id: pid, quantity: 1, price: 0 }], total: 0 };

  const email = 'buyer@example.org';
  const byEmail = await w.call({ method: 'POST', url: '/api/storefront/acm/checkout', token: await w.idpToken(email), body: cart });
  t.equal(byEmail.statusCode, 201, byEmail.body);
  const bySession = await w.call({ method: 'POST', url: '/api/storefront/acm/members/orders', cookie: w.memberCookie, body: cart });
  t.equal(bySession.statusCode, 201, bySession.body);
  const buyer = byEmail.json().order.user_id;
  const bob = bySession.json().order.user_id;

  // Say the core links each person's other identity to their users row: this org learned neither.
  await w.sql("update users set chat_user_id = '1400000000000000888', username = 'linked' where id = ?", [buyer]);
  await w.sql("update users set email = 'bob@private.example' where id = ?", [bob]);
  // And another org records the buyer's student id.
  const otherToken = await w.strangerOfficerToken();
  const sheet = await w.call({ method: 'POST', url: '/api/points/other/checkins', token: otherToken, body: { event: 'E', points: 1, csv: `email,student_id\n${email},S-OTHER` } });
  t.equal(sheet.statusCode, 201, sheet.body);

  const list = await w.call({ url: '/api/storefront/acm/orders', ...officer });
  t.equal(list.statusCode, 200);
  const memberOf = (userId: number) => list.json().orders.find((o: { user_id: number }) => o.user_id === userId).member;
  t.same(memberOf(buyer), { email, username: null, chat_user_id: null }, 'the storefront buyer: the email they ordered with');
  t.same(memberOf(bob), { email: null, username: 'bob', chat_user_id: w.member.id }, 'the Discord member: their Discord identity');
  t.notOk(/1400000000000000888|linked|bob@private|S-OTHER/.test(list.body), 'nothing the org did not learn');
  const one = await w.call({ url: `/api/storefront/acm/orders/${byEmail.json().order.id}`, ...officer });
  t.same(one.json().member, { email, username: null, chat_user_id: null });
  const moved = await w.call({ method: 'PUT', url: `/api/storefront/acm/orders/${bySession.json().order.id}`, ...officer, body: { status: 'processing' } });
  t.same(moved.json().order.member, { email: null, username: 'bob', chat_user_id: w.member.id });
  t.same((await w.call({ url: '/api/storefront/other/orders', token: otherToken })).json().orders, [], 'the other org sees no orders of this one');
});
