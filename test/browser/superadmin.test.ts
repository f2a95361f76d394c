// Superadmin in a real browser: only superadmins see it (an officer is refused); orgs are added, given an officer
// role, made publishers and removed after typing the prefix; a limit override is edited and shown; health shows
// numbers; the audit log lists what was done; a bot outage is said plainly.
import t from 'tap';
import { quotaModule } from '../limits/fixture.js';
import { startBrowserWorld } from './harness.js';

const ADMIN = '999000444';

t.test('Superadmin', async (t) => {
  const world = await startBrowserWorld(t, { plugins: [quotaModule], orgModules: { quota: true }, config: { SYS_ADMIN: [ADMIN] } });
  const { quad, discord } = world;
  discord.addUser({ id: ADMIN, username: 'root' });
  const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);

  await t.test('an officer who is not a superadmin neither sees it nor may use it', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
    await sidebar.getByRole('link', { name: 'Settings' }).waitFor();
    t.equal(await sidebar.getByRole('link', { name: 'Superadmin' }).count(), 0, 'not in the sidebar');
    await page.goto('/dashboard/superadmin');
    await page.getByText('Superadmins only').waitFor();
    t.equal(await page.getByRole('tab').count(), 0, 'no tabs');
    await world.screenshot(page, 'superadmin-refused');
    t.same(world.problems(page), []);
    await page.context().close();
  });

  const page = await world.open();
  await world.signIn(page, ADMIN);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
  await sidebar.getByRole('link', { name: 'Superadmin' }).click();
  await page.getByRole('heading', { level: 1, name: 'Superadmin' }).waitFor();
  const tab = (name: string) => page.getByRole('tab', { name });

  await t.test('Orgs: add one, set its officer role, make it a publisher, remove it after typing its prefix', async (t) => {
    t.same(await page.getByRole('tab').allTextContents(), ['Orgs', 'Limits', 'Health', 'Audit', 'Errors']);
    await page.getByRole('cell', { name: 'acm', exact: true }).waitFor();
    const guild = discord.addGuild({ name: 'IEEE Server' });
    const role = discord.addRole(guild.id, { name: 'Board' });
    // The server list was read before the bot joined the server.
    await page.getByRole('button', { name: 'Refresh servers' }).click();
    await page.getByLabel('Prefix').fill('ieee');
    await page.getByLabel('Name', { exact: true }).fill('IEEE Student Branch');
    const server = page.getByLabel('Discord server');
    await server.locator('option', { hasText: 'IEEE Server' }).waitFor({ state: 'attached' });
    t.equal(await server.locator('option', { hasText: 'ACM Server' }).count(), 0, 'a server with an org is not offered');
    await server.selectOption({ label: 'IEEE Server' });
    await page.getByRole('button', { name: 'Add org' }).click();
    await page.getByRole('status').filter({ hasText: 'Added ieee' }).waitFor();
    const row = page.getByRole('row', { name: /IEEE Student Branch/ });
    await row.waitFor();
    t.ok(await row.getByText('IEEE Server').isVisible(), 'its server by name');

    await page.getByRole('button', { name: 'Change the officer role of ieee' }).click();
    await page.getByLabel('Officer role of ieee').selectOption({ label: 'Board' });
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText('Board', { exact: true }).waitFor();
    const [org] = await sql('select id, officer_role_id, publisher from organizations where prefix = ?', ['ieee']);
    t.equal(org.officer_role_id, role.id, 'the officer role is set');

    const publisher = page.getByRole('switch', { name: 'ieee publishes shared content' });
    const answered = page.waitForResponse((r) => r.url().includes('/api/superadmin/publishers/') && r.request().method() === 'PUT');
    await publisher.check();
    t.equal((await answered).status(), 200);
    await row.getByText('Yes').waitFor();
    t.equal((await sql('select publisher from organizations where prefix = ?', ['ieee']))[0].publisher, true, 'a publisher');
    await world.screenshot(page, 'superadmin-orgs');

    await page.getByRole('button', { name: 'Remove ieee' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove IEEE Student Branch?' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Remove org' });
    t.ok(await confirm.isDisabled(), 'not before the prefix is typed');
    await dialog.getByLabel('Type ieee to confirm').fill('iee');
    t.ok(await confirm.isDisabled(), 'nor with a wrong one');
    await dialog.getByLabel('Type ieee to confirm').fill('ieee');
    await confirm.click();
    await row.waitFor({ state: 'detached' });
    t.equal((await sql('select count(*)::int as n from organizations where prefix = ?', ['ieee']))[0].n, 0, 'removed');
  });

  await t.test('Limits: every org\'s use; an override edited, shown, and removed', async (t) => {
    t.equal((await quad.api.inject({ method: 'POST', url: '/api/quota/acm/things', payload: { count: 4 } })).statusCode, 201);
    await tab('Limits').click();
    const acm = page.getByRole('region', { name: /acm/ });
    const bar = page.getByRole('progressbar', { name: 'acm quota.things use' });
    t.equal(await bar.getAttribute('aria-valuetext'), '4 of 10');
    t.equal(await acm.getByText('Near a limit').count(), 0, 'not near yet');
    const field = page.getByLabel('Override of quota.things for acm', { exact: true });
    t.equal(await field.inputValue(), 'default', 'no override yet');
    const save = page.getByRole('button', { name: 'Save the override of quota.things for acm' });
    await field.fill('4.5');
    await page.getByText('A whole number, empty (no limit) or default').waitFor();
    t.ok(await save.isDisabled(), 'not a whole number');
    await field.fill('5');
    await save.click();
    await page.waitForFunction(() => document.querySelector('[aria-label="acm quota.things use"]')?.getAttribute('aria-valuetext') === '4 of 5, near the limit');
    t.pass('4 of 5: near the limit');
    await acm.getByText('Near a limit').waitFor();
    const [override] = await sql("select value from org_limits where key = 'quota.things'");
    t.equal(override.value, 5);
    await world.screenshot(page, 'superadmin-limits');

    await field.fill('');
    await save.click();
    await acm.getByText('4 used · no limit').waitFor();
    t.equal((await sql("select value from org_limits where key = 'quota.things'"))[0].value, null, 'empty: no limit');
    await field.fill('default');
    await save.click();
    await page.waitForFunction(() => document.querySelector('[aria-label="acm quota.things use"]')?.getAttribute('aria-valuetext') === '4 of 10');
    t.equal((await sql("select count(*)::int as n from org_limits where key = 'quota.things'"))[0].n, 0, 'default: the override is gone');
  });

  await t.test('Health: numbers and the time of the reading', async (t) => {
    await tab('Health').click();
    await page.getByText(/^Reading of /).waitFor();
    const fact = async (card: string, term: string) => page.getByRole('region', { name: card }).locator('dt', { hasText: term }).locator('+ dd').textContent();
    t.match(await fact('Database', 'Size'), /^\d+(\.\d)? [KMG]iB$/, 'the database size');
    t.match(await fact('Load', '1 minute'), /^\d+\.\d\d$/, 'the load');
    t.match(await fact('Memory', 'Used'), /^\d+(\.\d)? [KMGT]iB of /, 'memory');
    t.match(await fact('Job queue', 'Waiting'), /^\d+$/, 'the job queue');
    t.equal(await fact('Bot', 'State'), 'available');
    await world.screenshot(page, 'superadmin-health');
  });

  await t.test('Audit: what was done, from every org', async (t) => {
    await tab('Audit').click();
    const override = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'limits.override' }) }).first();
    await override.waitFor();
    t.ok(await override.getByRole('cell', { name: 'acm', exact: true }).isVisible(), 'an override of acm, with its org');
    // The removed org's own rows went with it; its removal is recorded apart from any org.
    t.ok(await page.getByRole('cell', { name: 'org.remove' }).isVisible(), 'the org removed');
    await world.screenshot(page, 'superadmin-audit');
  });

  await t.test('Errors, and a bot outage said plainly', async (t) => {
    discord.down(true);
    // The bot is probed at most every 30 s while it was up: force a fresh probe.
    (quad.auth.bot as unknown as { last: null }).last = null;
    await tab('Errors').click();
    await page.getByRole('alert').filter({ hasText: 'The Discord bot is unavailable' }).waitFor();
    await world.screenshot(page, 'superadmin-bot-down');
    discord.down(false);
    (quad.auth.bot as unknown as { last: null }).last = null;
    await page.getByRole('tabpanel').getByLabel('Org', { exact: true }).selectOption('acm');
    await page.getByText('Nothing in the errors').waitFor();
    t.pass('with the bot back, the (empty) error log of acm');
  });
  t.same(world.problems(page), []);
});
