// A third-party plugin's page in a real browser: examples/hello-plugin, enabled by the operator (PLUGINS_EXTRA),
// brings a page and an Overview card in its own prebuilt bundle. The dashboard was built without it; it loads the
// bundle at run time, and the bundle's React is the dashboard's (one React: its hooks work).
import t from 'tap';
import { cardSays, startBrowserWorld } from './harness.js';

t.test('a plugin\'s own page and Overview card', async (t) => {
  const world = await startBrowserWorld(t, { config: { PLUGINS_EXTRA: ['./examples/hello-plugin'] }, orgModules: { hello: true } });
  const { quad, org } = world;
  const greeter = await quad.issueToken(org.id, { scopes: ['hello:write'] });
  for (const name of ['Ada', 'Grace', 'Alan']) {
    const res = await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', headers: { authorization: `Bearer ${greeter.token}` }, payload: { name } });
    t.equal(res.statusCode, 201);
  }
  await quad.updateOrg(org.id, { modules: {} });

  const page = await world.open();
  const bundles: string[] = [];
  page.on('response', (r) => { if (r.url().includes('/dashboard/plugins/')) bundles.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });

  await t.test('while the module is off: no page, no card, and the bundle is not loaded', async (t) => {
    // The Overview's own sections are shown (its counts); a module that is off has no card there.
    await page.getByRole('link', { name: /^Open problems: / }).waitFor();
    t.equal(await page.getByRole('region', { name: 'Hello' }).count(), 0);
    t.equal(await sidebar.getByRole('link', { name: 'Greetings' }).count(), 0);
    t.same(bundles, []);
  });

  await t.test('switched on: the page appears and runs on the dashboard\'s React and SDK', async (t) => {
    await page.getByRole('link', { name: 'Explore' }).click();
    await page.getByRole('button', { name: 'Add Hello' }).click();
    await sidebar.getByRole('link', { name: 'Greetings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Greetings' }).waitFor();
    const rows = page.getByRole('table', { name: 'Greetings' }).getByRole('row');
    await rows.nth(3).waitFor();
    t.equal(await rows.count(), 4, 'a header and a row for each greeting (its own route, through the SDK\'s request layer)');
    t.same(bundles, ['200 /dashboard/plugins/hello/index.js'], 'the bundle came from the plugin\'s folder');

    // State (useState) in the plugin's component: a hook works only when the bundle's React is the dashboard's.
    await page.getByLabel('Filter by name').fill('al');
    await page.getByRole('cell', { name: 'Grace', exact: true }).waitFor({ state: 'detached' });
    t.equal(await rows.count(), 2, 'only Alan matches');
    await world.screenshot(page, 'hello-page');

    const shared = await page.evaluate(async () => {
      // Bare specifiers resolve through the page's import map, as in the plugin's bundle.
      const load = (specifier: string) => import(/* @vite-ignore */ specifier);
      const [react, sdk, query] = await Promise.all([load('react'), load('@quad/web/sdk'), load('@tanstack/react-query')]);
      return { version: react.version, hooks: typeof react.useState, sdk: Object.keys(sdk).sort(), query: typeof query.useQuery };
    });
    t.match(shared.version, /^19\./, 'the import map gives React 19 with named exports');
    t.equal(shared.hooks, 'function');
    t.equal(shared.query, 'function');
    t.ok(['useApi', 'apiFetch', 'useOrg', 'Button', 'Table', 'Field', 'Card', 'ShowMore', 'EmptyState'].every((n) => shared.sdk.includes(n)), 'the SDK exports its request layer, org and UI', { sdk: shared.sdk });
  });

  await t.test('its Overview card', async (t) => {
    await sidebar.getByRole('link', { name: 'Overview' }).click();
    const card = page.getByTestId('hello-card');
    await card.waitFor();
    await cardSays(t, card, '3 greetings; the latest: Hello, Alan!');
    t.ok(await page.getByRole('region', { name: 'Hello' }).isVisible(), 'in a card titled by the module');
    await world.screenshot(page, 'overview-card');
  });

  await t.test('a page whose bundle does not load says so and offers another try', async (t) => {
    const fresh = await world.open();
    await fresh.route('**/dashboard/plugins/hello/index.js', (route) => route.fulfill({ status: 500, body: 'down' }));
    await world.signIn(fresh);
    await fresh.goto('/dashboard/hello');
    await fresh.getByRole('alert').filter({ hasText: 'Greetings could not be shown' }).waitFor();
    await fresh.unroute('**/dashboard/plugins/hello/index.js');
    await fresh.getByRole('button', { name: 'Try again' }).click();
    await fresh.getByRole('heading', { level: 1, name: 'Greetings' }).waitFor();
    t.pass('loaded on the second try');
    t.same(world.problems(fresh), []);
  });
  t.same(world.problems(page), []);
});
