// Explore in a real browser: Add is disabled until a module's needs are connected (and says why), a module switched
// on shows its page in the sidebar, Remove asks first and keeps the data, core modules are Included.
import t from 'tap';
import { startBrowserWorld } from './harness.js';

t.test('Explore: switching modules on and off', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./plugins/points', './plugins/store', './examples/hello-plugin'], orgModules: {} });
  const { quad, org } = world;
  // A greeting left while hello was on, to find again: the module gate refuses it while hello is off.
  await quad.updateOrg(org.id, { modules: { hello: true } });
  const greeter = await quad.issueToken(org.id, { scopes: ['hello:write'] });
  const greet = await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', headers: { authorization: `Bearer ${greeter.token}` }, payload: { name: 'Ada' } });
  t.equal(greet.statusCode, 201, 'a greeting to find again later');
  await quad.updateOrg(org.id, { modules: {} });
  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('link', { name: 'Explore' }).click();
  await page.getByRole('heading', { level: 1, name: 'Explore' }).waitFor();
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
  const greetingsLink = sidebar.getByRole('link', { name: 'Greetings' });

  await t.test('Add is disabled while a need is missing, and says which', async (t) => {
    const addStore = page.getByRole('button', { name: 'Add Store' });
    t.ok(await addStore.isDisabled(), 'the store needs points');
    const reason = await addStore.getAttribute('aria-describedby');
    t.equal(await page.locator(`[id="${reason}"]`).textContent(), 'Needs Points first', 'the reason is shown and read with the button');
    await world.screenshot(page, 'explore');

    await page.getByRole('button', { name: 'Add Points' }).click();
    await page.getByRole('button', { name: 'Remove Points' }).waitFor();
    t.ok(await addStore.isEnabled(), 'with points on, the store may be added');
    await addStore.click();
    await page.getByRole('button', { name: 'Remove Store' }).waitFor();
    t.equal((await quad.api.inject('/api/storefront/acm/products')).statusCode, 200, 'the store is on for the org');
  });

  await t.test('a module switched on shows its page in the sidebar', async (t) => {
    t.equal(await greetingsLink.count(), 0, 'no Greetings while hello is off');
    await page.getByRole('button', { name: 'Add Hello' }).click();
    await greetingsLink.waitFor();
    await greetingsLink.click();
    await page.getByRole('cell', { name: 'Ada', exact: true }).waitFor();
    t.pass('the page shows the greeting left before');
    await page.getByRole('link', { name: 'Explore' }).click();
  });

  await t.test('Remove asks first; it turns the module off and keeps its data', async (t) => {
    await page.getByRole('button', { name: 'Remove Hello' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Hello?' });
    await dialog.waitFor();
    t.match(await dialog.textContent(), /data is kept/);
    await world.screenshot(page, 'explore-remove');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.ok(await greetingsLink.isVisible(), 'cancelled: still on');
    t.equal((await quad.api.inject('/api/hello/acm/greetings')).statusCode, 200);

    await page.getByRole('button', { name: 'Remove Hello' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Add Hello' }).waitFor();
    await greetingsLink.waitFor({ state: 'detached' });
    t.equal((await quad.api.inject('/api/hello/acm/greetings')).statusCode, 404, 'its routes are off');

    await page.getByRole('button', { name: 'Add Hello' }).click();
    await greetingsLink.click();
    await page.getByRole('cell', { name: 'Ada', exact: true }).waitFor();
    t.pass('added again, its data is still there');
    await page.getByRole('link', { name: 'Explore' }).click();
  });

  await t.test('removing a module another one needs is refused, with the reason', async (t) => {
    await page.getByRole('button', { name: 'Remove Points' }).click();
    await page.getByRole('dialog', { name: 'Remove Points?' }).getByRole('button', { name: 'Remove' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Points could not be switched' });
    await alert.waitFor();
    t.match(await alert.textContent(), /Store needs Points/);
    t.ok(await page.getByRole('button', { name: 'Remove Points' }).isVisible(), 'points stays on');
  });

  await t.test('core modules are Included', async (t) => {
    const included = page.getByRole('region', { name: 'Always on' });
    t.ok(await included.getByRole('heading', { name: 'Tokens' }).isVisible());
    t.ok((await included.getByText('Included').count()) >= 5, 'each shows Included');
    t.equal(await included.getByRole('button').count(), 0, 'with nothing to switch');
  });
  t.same(world.problems(page), []);
});
