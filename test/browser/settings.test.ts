// Settings in a real browser: General saves the org's name; Branding's accent shows at once on primary buttons and
// the org initial; a secret is set write-only (listed as set, its value nowhere in the page) and deleted after
// asking; Limits are read-only and grouped by who pays, a limit at 80 % marked.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { bearer, signInOfficer } from '@quad/core/testing';
import { quotaModule } from '../limits/fixture.js';
import { startBrowserWorld, waitForBackground } from './harness.js';

const SECRET_VALUE = 'ghp_do-not-show-me-0123456789';

t.test('Settings', async (t) => {
  const world = await startBrowserWorld(t, {
    plugins: [quotaModule, './examples/hello-plugin'], orgModules: { quota: true, hello: true },
    config: { SECRETS_KEY: [randomBytes(32).toString('base64')] },
  });
  const { quad } = world;
  const { access_token } = await signInOfficer(world, world.officer.id);
  const api = (method: 'GET' | 'POST', url: string, payload?: object) => quad.api.inject({ method, url, headers: bearer(access_token), payload });
  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  const tab = (name: string) => page.getByRole('tab', { name });

  await t.test('General: the name changes here and in the sidebar', async (t) => {
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('');
    t.ok(await page.getByRole('button', { name: 'Save' }).isDisabled(), 'an empty name cannot be saved');
    await name.fill('ACM Club');
    await page.getByLabel('Points per message').fill('5');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    t.match((await api('GET', '/api/dashboard/acm/settings')).json(), { name: 'ACM Club', points_per_message: 5 });
    await page.locator('.q-org-name', { hasText: 'ACM Club' }).waitFor();
    await world.screenshot(page, 'settings-general');
  });

  await t.test('Branding: the accent shows at once on primary buttons and the org initial', async (t) => {
    await tab('Branding').click();
    t.equal(new URL(page.url()).search, '?tab=branding', 'the tab is in the address');
    const hex = page.getByLabel('Accent color', { exact: true });
    await hex.fill('#12345');
    await page.getByText('A color as #RRGGBB').waitFor();
    t.ok(await page.getByRole('button', { name: 'Save branding' }).isDisabled(), 'a bad color cannot be saved');
    // The color picker fills the hex field.
    await page.getByLabel('Accent color picker').fill('#1d4ed8');
    t.equal(await hex.inputValue(), '#1D4ED8');
    const save = page.getByRole('button', { name: 'Save branding' });
    await save.click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await waitForBackground(page, '[data-testid="org-initial"]', 'rgb(29, 78, 216)');
    t.pass('the org initial wears the accent, without a reload');
    t.equal(await save.evaluate((e) => getComputedStyle(e).backgroundColor), 'rgb(29, 78, 216)', 'so does a primary button');
    t.equal(await save.evaluate((e) => getComputedStyle(e).color), 'rgb(255, 255, 255)', 'white reads on a dark accent');
    t.equal((await api('GET', '/api/dashboard/acm/branding')).json().accent_color, '#1D4ED8');
    await world.screenshot(page, 'settings-branding');

    await page.getByLabel('Website').fill('http://acm.example.org');
    await page.getByText('Must start with https://').waitFor();
    await page.getByLabel('Website').fill('https://acm.example.org');
    await page.getByRole('button', { name: 'Clear color' }).click();
    await save.click();
    await waitForBackground(page, '[data-testid="org-initial"]', 'rgb(107, 114, 128)');
    t.match((await api('GET', '/api/dashboard/acm/branding')).json(), { accent_color: null, website_url: 'https://acm.example.org' }, 'gray again');
  });

  await t.test('Secrets: set write-only, listed as set, never shown; deleted after asking', async (t) => {
    await tab('Secrets').click();
    const github = page.getByRole('region', { name: /GitHub/ });
    await github.getByText('Not connected').waitFor();
    const status = page.getByTestId('secret-status-github.token');
    t.equal(await status.textContent(), 'Not set');
    const field = page.getByLabel('Value for Token (read-only; Actions: read)');
    t.equal(await field.getAttribute('type'), 'password');
    await field.fill(SECRET_VALUE);
    await page.getByRole('button', { name: 'Save Token (read-only; Actions: read)' }).click();
    await github.getByText('Connected', { exact: true }).waitFor();
    t.match(await status.textContent(), /^Set /, 'listed as set');
    const field2 = page.getByLabel('New value for Token (read-only; Actions: read)');
    t.equal(await field2.inputValue(), '', 'the field is emptied');
    t.notOk((await page.content()).includes(SECRET_VALUE), 'the value is nowhere in the page');
    const values = await page.locator('input, textarea').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    t.notOk(values.some((v) => v.includes(SECRET_VALUE)), 'nor in any field');
    t.notOk(JSON.stringify((await api('GET', '/api/dashboard/acm/secrets')).json()).includes(SECRET_VALUE), 'nor in the API\'s answer');
    await world.screenshot(page, 'settings-secrets');

    await page.getByRole('button', { name: 'Delete Token (read-only; Actions: read)' }).click();
    const dialog = page.getByRole('dialog', { name: /Delete Token/ });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.match(await status.textContent(), /^Set /, 'cancelled: still set');
    await page.getByRole('button', { name: 'Delete Token (read-only; Actions: read)' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await github.getByText('Not connected').waitFor();
    t.equal(await status.textContent(), 'Not set');
    const listed = (await api('GET', '/api/dashboard/acm/secrets')).json().secrets.find((s: { name: string }) => s.name === 'github.token');
    t.equal(listed.set, false);
  });

  await t.test('Limits: read-only, grouped by who pays, 80 % marked', async (t) => {
    t.equal((await quad.api.inject({ method: 'POST', url: '/api/quota/acm/things', payload: { count: 8 } })).statusCode, 201, '8 of 10 things');
    await tab('Limits').click();
    const org = page.getByRole('region', { name: 'Paid by the org' });
    const metered = page.getByRole('region', { name: 'Metered' });
    const shared = page.getByRole('region', { name: 'Shared' });
    await org.waitFor();
    t.ok(await org.getByText('quota.things').isVisible(), 'a count: paid by the org');
    t.ok(await org.getByText('quota.hourly').isVisible(), 'a rate the manifest says the org pays');
    t.ok(await metered.getByText('quota.calls_per_minute').isVisible(), 'a rate: metered');
    t.ok(await metered.getByText('mcp.calls_per_minute').isVisible(), 'the core\'s tool calls: metered');
    t.ok(await shared.getByText('quota.shared_pages').isVisible(), 'shared content');
    t.equal(await org.getByText('quota.calls_per_minute').count(), 0, 'each limit in one group only');
    const things = page.getByRole('progressbar', { name: 'quota.things use' });
    t.equal(await things.getAttribute('aria-valuetext'), '8 of 10, near the limit');
    t.ok(await org.getByRole('row', { name: /quota\.things/ }).getByText('Near limit').isVisible(), 'marked near the limit');
    t.equal(await page.getByRole('progressbar', { name: 'quota.hourly use' }).getAttribute('aria-valuetext'), '0 of 100');
    t.equal(await page.locator('.q-tabpanel input').count(), 0, 'nothing to edit');
    await world.screenshot(page, 'settings-limits');
  });
  t.same(world.problems(page), []);
});
