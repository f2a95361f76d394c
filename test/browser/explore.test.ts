// Explore in a real browser: Add is disabled until a module's needs are connected (and says why), a module switched
// on shows its page in the sidebar, Remove asks first and keeps the data, core modules are Included. Integrations
// has a form per outside service the modules declare, connected once its secret is set (test/browser/integrations.test.ts
// connects, tests and clears one); Submodules says what is to come
// until a module that is on brings the tab (manifest pages.exploreTabs), whose component then renders there.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { defineModule, defineTool, Type } from '@quad/core';
import { bearer, signInOfficer } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

/** A module with an outside service: a scope of its own (one tool), a scope that calls it, and a need of it. */
const mirror = defineModule({
  name: 'mirror', title: 'Mirror', description: 'Mirrors repos', category: 'Developer',
  integrations: [{ key: 'forge', title: 'Forge', description: 'A code host for the tests', secrets: [{ name: 'forge.token', label: 'Token' }] }],
  needs: [{ key: 'forge', label: 'Forge token', kind: 'integration' }],
  scopes: [
    { name: 'mirror:forge', description: 'Forge tools', integration: 'forge' },
    { name: 'mirror:read', description: 'Read the mirrors', uses: ['forge'] },
  ],
  tools: [defineTool({ name: 'mirror.list_repos', description: 'Lists the repos', scope: 'mirror:forge', input: Type.Object({}), async handler() { return { repos: [] }; } })],
});

/** A module that brings Explore's Submodules tab from its own (hand-written) bundle. */
const subscriptions = defineModule({
  name: 'subs_demo', title: 'Subscriptions demo', description: 'Brings the Submodules tab', category: 'Tests',
  pages: {
    bundle: new URL('../fixtures/explore-tab-bundle/', import.meta.url),
    exploreTabs: [{ id: 'submodules', label: 'Submodules', component: 'SubmodulesTab' }],
  },
});

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

t.test('Explore: integrations and submodules', async (t) => {
  const world = await startBrowserWorld(t, {
    plugins: [mirror, subscriptions], orgModules: {}, config: { SECRETS_KEY: [randomBytes(32).toString('base64')] },
  });
  const { quad } = world;
  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('link', { name: 'Explore' }).click();
  await page.getByRole('tab', { name: 'Integrations' }).click();
  const forge = page.getByRole('region', { name: /^Forge/ });

  await t.test('each declared service, not connected, with its fields and the modules that need it', async (t) => {
    await forge.getByText('Not connected', { exact: true }).waitFor();
    t.match(await forge.textContent(), /A code host for the tests/);
    t.match(await forge.textContent(), /Needed by mirror; declared by mirror/);
    t.equal(await forge.getByLabel('Token').getAttribute('type'), 'password', 'a secret field is write-only');
    t.ok(await page.getByRole('region', { name: /^GitHub/ }).isVisible(), 'the core\'s own service too');
    await world.screenshot(page, 'explore-integrations');
  });

  await t.test('connected once its secret is set', async (t) => {
    const { access_token } = await signInOfficer(world, world.officer.id);
    const set = await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/forge.token', headers: bearer(access_token), payload: { value: 'forge-secret' } });
    t.equal(set.statusCode, 200, 'the secret is set through the API');
    await page.reload();
    await forge.getByText('Connected', { exact: true }).waitFor();
    t.equal(await forge.getByText('Not connected').count(), 0);
    t.notOk((await page.content()).includes('forge-secret'), 'the value is not in the page');
    await page.getByRole('tab', { name: 'Modules', exact: true }).click();
    t.ok(await page.getByRole('button', { name: 'Add Mirror' }).isEnabled(), 'the module that needs it may be added');
  });

  await t.test('Submodules says what is to come', async (t) => {
    await page.getByRole('tab', { name: 'Submodules' }).click();
    await page.getByText('No submodules yet').waitFor();
    t.match(await page.getByRole('tabpanel').textContent(), /arrive with the Submodules module/);
  });

  await t.test('a module that is on brings the Submodules tab from its bundle', async (t) => {
    await page.getByRole('tab', { name: 'Modules', exact: true }).click();
    await page.getByRole('button', { name: 'Add Subscriptions demo' }).click();
    await page.getByRole('button', { name: 'Remove Subscriptions demo' }).waitFor();
    await page.getByRole('tab', { name: 'Submodules' }).click();
    await page.getByTestId('demo-submodules').waitFor();
    t.equal(await page.getByRole('tabpanel').textContent(), `The submodules ${world.org.name} subscribes to`, 'the module\'s component, with the dashboard\'s org');
    t.equal(await page.getByRole('tab').count(), 3, 'in the placeholder\'s place');
    await page.reload();
    await page.getByTestId('demo-submodules').waitFor();
    t.pass('opened from its address (?tab=submodules) once the listing is read');
  });
  t.same(world.problems(page), []);
});
