// The uptime module's page in a real browser, against a monitored site on the outside loopback address: a monitor
// added through the form is listed as pending; Check now checks it (the route answers the check) and the detail shows
// the latency chart and day bars; an edit to one failure before down and a failing site make it Down with the reason;
// the Overview card counts it; Delete asks first.
import t from 'tap';
import { allowOutside, startMonitoredSite } from '@quad/core/testing';
import { cardSays, startBrowserWorld } from './harness.js';

allowOutside(t);

t.test('Uptime: add a monitor, check it now, see it go down, delete it', async (t) => {
  const site = await startMonitoredSite(t);
  const world = await startBrowserWorld(t, { plugins: ['./plugins/uptime'], orgModules: { uptime: true }, role: 'api' });
  const { quad, org } = world;
  const page = await world.open();
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
  const table = page.getByRole('table', { name: 'Monitors' });
  const monitorRow = table.getByRole('row').filter({ hasText: 'Website' });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

  await t.test('a monitor added through the form is listed as pending', async (t) => {
    await sidebar.getByRole('link', { name: 'Uptime' }).click();
    await page.getByRole('heading', { level: 1, name: 'Uptime' }).waitFor();
    const form = page.getByRole('form', { name: 'Add a monitor' });
    t.equal(await form.getByLabel('Every (seconds)').inputValue(), '300', 'the fields start at their defaults');
    await form.getByLabel('Name').fill('Website');
    await form.getByLabel('URL').fill(site.url('/health'));
    await form.getByLabel('Keyword').fill('operational');
    await form.getByRole('button', { name: 'Add monitor' }).click();
    await status('Added Website').waitFor();
    await monitorRow.waitFor();
    t.match(await monitorRow.textContent(), /Website.*\/health.*Pending.*Never checked.*Every 5 min/);
  });

  await t.test('Check now: the outcome, the row, and the detail with its charts', async (t) => {
    await monitorRow.getByRole('button', { name: 'Check Website now' }).click();
    await status(/Checked Website: 200 in \d+ ms\./).waitFor();
    await monitorRow.getByText('Up', { exact: true }).waitFor();
    t.match(await monitorRow.textContent(), /100 %.*100 %/, '24 h and 30 days');
    await page.getByRole('heading', { name: 'Details of Website' }).waitFor();
    await page.getByTestId('latency-chart').locator('circle').first().waitFor();
    t.equal(await page.getByTestId('latency-chart').locator('circle').count(), 1, 'one point per check');
    t.equal(await page.getByTestId('day-bars').locator('rect').count(), 30, 'one bar per day');
    await page.getByRole('table', { name: 'Latest checks of Website' }).getByRole('row').nth(1).waitFor();
    await world.screenshot(page, 'uptime-up');
  });

  await t.test('edited to one failure before down, a failing check makes it Down with the reason', async (t) => {
    await monitorRow.getByRole('button', { name: 'Edit Website' }).click();
    const form = page.getByRole('form', { name: 'Edit Website' });
    await form.getByLabel('Failures before down').fill('1');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('form', { name: 'Add a monitor' }).waitFor();
    t.equal(await page.getByRole('form', { name: 'Edit Website' }).count(), 0, 'the edit form closed');
    site.answer({ status: 500 });
    await monitorRow.getByRole('button', { name: 'Check Website now' }).click();
    await status('Check of Website failed: answered 500, expected 200.').waitFor();
    await monitorRow.getByText('Down', { exact: true }).waitFor();
    await page.getByTestId('latency-chart').locator('circle[data-failed="true"]').waitFor();
    const [problem] = await quad.orm.em.fork().getConnection().execute(
      `select title from notifications where organization_id = ${Number(org.id)} and category = 'problem' and kind = 'uptime.down'`);
    t.equal(problem?.title, 'Website is down', 'the problem is raised');
    await world.screenshot(page, 'uptime-down');
  });

  await t.test('the Overview card counts it', async (t) => {
    await sidebar.getByRole('link', { name: 'Overview' }).click();
    const card = page.getByTestId('uptime-card');
    await card.waitFor();
    await cardSays(t, card, '1 monitors: 0 up, 1 down, 0 pending, 0 paused.');
    await sidebar.getByRole('link', { name: 'Uptime' }).click();
  });

  await t.test('Delete asks first', async (t) => {
    await monitorRow.getByRole('button', { name: 'Delete Website' }).click();
    await page.getByRole('dialog', { name: 'Delete Website?' }).getByRole('button', { name: 'Delete monitor' }).click();
    await page.getByText('No monitors yet').waitFor();
    t.same(await quad.orm.em.fork().getConnection().execute(`select id from uptime_monitors where organization_id = ${Number(org.id)}`), []);
  });
  t.same(world.problems(page), []);
});
