// The member store pages in a real browser, end to end: the officer adds a product on the Store page; a member signs
// in on /store/<org>/login through the (fake) identity provider, which hands its session token over in the address's
// fragment; they buy the product with their points (the balance drops by the price); a price changed meanwhile is
// said and the catalog read again; the officer finds the order on the Store page and moves its status with a
// message, which the member then sees. At 1280 px and on a phone (375 px).
import t from 'tap';
import { startFakeIdp } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

const EMAIL = 'ada@example.org';

t.test('a member buys with points; the officer ships the order', async (t) => {
  const idp = await startFakeIdp();
  t.teardown(() => idp.close());
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/points', './plugins/store'],
    orgModules: { points: true, store: true },
    config: { IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp] },
  });
  const { quad } = world;
  const officer = await world.open();
  await world.signIn(officer);
  const sidebar = officer.getByRole('navigation', { name: 'Dashboard' });

  await t.test('the officer adds a product and gives the member points', async (t) => {
    await sidebar.getByRole('link', { name: 'Store' }).click();
    const form = officer.getByRole('form', { name: 'Add a product' });
    for (const [name, price] of [['Sticker', '30'], ['Hoodie', '80']]) {
      await form.getByLabel('Name').fill(name!);
      await form.getByLabel('Price (points)').fill(price!);
      await form.getByLabel('Stock').fill('5');
      await form.getByRole('button', { name: 'Add product' }).click();
      await officer.getByRole('status').filter({ hasText: `Added ${name}.` }).waitFor();
    }
    await sidebar.getByRole('link', { name: 'Points' }).click();
    const award = officer.getByRole('form', { name: 'Award points' });
    await award.getByLabel('Email').fill(EMAIL);
    await award.getByLabel('Points').fill('100');
    await award.getByRole('button', { name: 'Award' }).click();
    await officer.getByRole('status').filter({ hasText: 'Balance: 100.' }).waitFor();
    t.pass();
  });

  const member = await world.open();
  const user = idp.addUser({ emails: [EMAIL] });

  await t.test('the catalog is public; signing in goes through the identity provider', async (t) => {
    await member.goto('/store/acm');
    await member.getByRole('heading', { level: 2, name: 'Sticker' }).waitFor();
    t.equal(await member.getByRole('button', { name: 'Add Sticker to the cart' }).count(), 0, 'no cart before signing in');
    await member.getByRole('link', { name: 'Sign in' }).first().click();
    await member.getByRole('heading', { level: 1, name: 'Sign in to the store' }).waitFor();
    await member.getByRole('note').filter({ hasText: 'identity provider' }).waitFor();

    // The identity provider sends the member back with its session token in the fragment.
    const token = await idp.issueToken(user.id, { expiresIn: 3600 });
    await member.goto(`/store/acm/login#session_token=${token}&email=${encodeURIComponent(EMAIL)}`);
    const signIn = member.getByRole('form', { name: 'Sign in' });
    await signIn.waitFor();
    t.notMatch(member.url(), /session_token/, 'the token leaves the address at once');
    t.equal(await signIn.getByLabel('Email').inputValue(), EMAIL);
    await signIn.getByLabel('Email').fill('someone@example.org');
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await member.getByRole('alert').filter({ hasText: 'does not prove this email' }).waitFor();
    await signIn.getByLabel('Email').fill(EMAIL);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await member.getByText(`Signed in as ${EMAIL}`).waitFor();
    t.equal(new URL(member.url()).pathname, '/store/acm');
    t.equal(await member.getByTestId('balance').textContent(), '100 points');
    await world.screenshot(member, 'store-login-done');
  });

  await t.test('a changed price is said and the catalog read again', async (t) => {
    await member.getByRole('button', { name: 'Add Hoodie to the cart' }).click();
    const [hoodie] = (await quad.orm.em.fork().getConnection().execute(`select id from products where name = 'Hoodie'`)) as { id: number }[];
    const officerToken = await officer.evaluate(() => JSON.parse(sessionStorage.getItem('platform.tokens')!).access as string);
    const res = await quad.api.inject({ method: 'PUT', url: `/api/storefront/acm/products/${hoodie!.id}`, headers: { authorization: `Bearer ${officerToken}` }, payload: { price: 90 } });
    t.equal(res.statusCode, 200);
    await member.getByRole('button', { name: 'Check out' }).click();
    await member.getByRole('alert').filter({ hasText: 'Prices changed' }).waitFor();
    await member.getByText('Total: 90 points').waitFor();
    await member.getByLabel('Quantity of Hoodie').fill('2');
    await member.getByText('You need 80 more points for this cart.').waitFor();
    await member.getByRole('button', { name: 'Check out' }).click();
    await member.getByRole('alert').filter({ hasText: 'You have 100 points; this order costs 180.' }).waitFor();
    await member.getByRole('button', { name: 'Remove Hoodie from the cart' }).click();
    await member.getByText('Your cart is empty.').waitFor();
    t.equal(await member.getByTestId('balance').textContent(), '100 points', 'nothing was spent');
  });

  await t.test('the member buys a sticker: the balance drops by its price', async (t) => {
    await member.getByRole('button', { name: 'Add Sticker to the cart' }).click();
    await member.getByRole('button', { name: 'Check out' }).click();
    await member.getByRole('status').filter({ hasText: 'points spent' }).waitFor();
    t.match(await member.getByRole('status').filter({ hasText: 'points spent' }).textContent(), /^Order #\d+ placed: 30 points spent\. You have 70 points left\.$/);
    await member.getByTestId('balance').filter({ hasText: '70 points' }).waitFor();
    await member.getByRole('list', { name: 'Your orders' }).getByText('pending').waitFor();
    await world.screenshot(member, 'store-member');
    await member.setViewportSize({ width: 375, height: 800 });
    const width = await member.evaluate(() => document.documentElement.scrollWidth);
    t.ok(width <= 375, `no sideways scrolling on a phone (${width} px)`);
    await world.screenshot(member, 'store-member-375');
    await member.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('the officer finds the order and ships it with a message', async (t) => {
    await sidebar.getByRole('link', { name: 'Store' }).click();
    await officer.getByRole('tab', { name: 'Orders' }).click();
    const row = officer.getByRole('table', { name: 'Orders' }).getByRole('row').filter({ hasText: EMAIL });
    await row.waitFor();
    t.match(await row.textContent(), /1 × Sticker.*30.*Pending/);
    await row.getByRole('link').click();
    await officer.getByRole('heading', { level: 1, name: /^Order #\d+$/ }).waitFor();
    await officer.getByRole('table', { name: 'Items' }).getByRole('cell', { name: 'Sticker' }).waitFor();
    const update = officer.getByRole('form', { name: 'Update the order' });
    t.same(await update.getByLabel('Move to').locator('option').allTextContents(), ['Keep pending', 'Processing', 'Shipped', 'Delivered', 'Cancelled']);
    await update.getByLabel('Move to').selectOption('shipped');
    await update.getByLabel('Message to the member').fill('Pick it up at the next meeting');
    await update.getByRole('button', { name: 'Save' }).click();
    await officer.getByTestId('order-status').filter({ hasText: 'Shipped' }).waitFor();
    t.same(await update.getByLabel('Move to').locator('option').allTextContents(), ['Keep shipped', 'Delivered', 'Cancelled'], 'only the moves left');
    await world.screenshot(officer, 'store-order');
    await officer.getByRole('link', { name: 'All orders' }).click();
    await officer.getByRole('table', { name: 'Orders' }).getByRole('row').filter({ hasText: 'Shipped' }).waitFor();
  });

  await t.test('the member sees the new status and the message', async (t) => {
    await member.reload();
    const orders = member.getByRole('list', { name: 'Your orders' });
    await orders.getByText('shipped').waitFor();
    await orders.getByText('Message: Pick it up at the next meeting').waitFor();
    t.pass();
  });

  await t.test('signing out forgets the token', async (t) => {
    await member.getByRole('button', { name: 'Sign out' }).click();
    await member.getByRole('link', { name: 'Sign in' }).first().waitFor();
    t.equal(await member.evaluate(() => sessionStorage.getItem('platform.store.acm')), null);
  });

  t.same(world.problems(member), []);
  t.same(world.problems(officer), []);
});
