// The Points page in a real browser: the points module switched on, an award by email shows the member and their
// balance, a refused award shows the API's reason, a check-in sheet with one bad row shows its error and writes
// nothing, a good one is imported and its event listed, and deleting the event (after confirming) takes its points.
import t from 'tap';
import { cardSays, startBrowserWorld } from './harness.js';

t.test('the Points page', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./plugins/points'] });
  const { quad, org } = world;
  const page = await world.open();
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });

  await t.test('switched on in Explore, the page is in the sidebar', async (t) => {
    await page.getByRole('link', { name: 'Explore' }).click();
    await page.getByRole('button', { name: 'Add Points' }).click();
    await sidebar.getByRole('link', { name: 'Points' }).click();
    await page.getByRole('heading', { level: 1, name: 'Points' }).waitFor();
    await page.getByText('No members with points yet').waitFor();
    t.pass('empty lists say so');
  });

  const members = page.getByRole('table', { name: 'Members' });
  const award = page.getByRole('form', { name: 'Award points' });

  await t.test('an award by email shows the member and the balance', async (t) => {
    await award.getByLabel('Find the member by').selectOption('email');
    await award.getByLabel('Email').fill('ada@example.org');
    await award.getByLabel('Points').fill('120');
    await award.getByLabel('Reason').fill('Workshop help');
    await award.getByRole('button', { name: 'Award' }).click();
    await page.getByRole('status').filter({ hasText: 'Awarded 120 points to ada@example.org. Balance: 120.' }).waitFor();
    const row = members.getByRole('row').filter({ hasText: 'ada@example.org' });
    await row.getByRole('cell', { name: '120', exact: true }).first().waitFor();
    t.pass('the members list shows the balance');
  });

  await t.test('a refused award shows the API\'s reason', async (t) => {
    await award.getByLabel('Email').fill('ada@example.org');
    await award.getByLabel('Points').fill('-500');
    await award.getByRole('button', { name: 'Award' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Points not awarded' });
    await alert.waitFor();
    t.match(await alert.textContent(), /The member has 120 points; taking 500 would leave them below zero/);
  });

  const checkins = page.getByRole('form', { name: 'Upload check-ins' });
  const sheet = (csv: string) => ({ name: 'checkins.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });

  await t.test('a sheet with a bad row shows the row\'s error and imports nothing', async (t) => {
    await checkins.getByLabel('Event').fill('Hack night');
    await checkins.getByLabel('Points per check-in').fill('15');
    await checkins.getByLabel('Check-in sheet (CSV)').setInputFiles(sheet('email,points\nbob@example.org,\nnot-an-email,\n'));
    await checkins.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was imported' }).waitFor();
    const problems = page.getByRole('list', { name: 'Problems in the sheet' });
    t.match(await problems.textContent(), /^Row 3/);
    const [{ n }] = await quad.orm.em.fork().getConnection().execute(`select count(*)::int as n from points_entries where organization_id = ? and source = 'checkin'`, [org.id]);
    t.equal(n, 0, 'nothing written');
  });

  await t.test('a good sheet is imported and its event listed', async (t) => {
    await checkins.getByLabel('Check-in sheet (CSV)').setInputFiles(sheet('email,points\nbob@example.org,\nada@example.org,20\n'));
    await checkins.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 2 check-ins to Hack night (35 points).' }).waitFor();
    const events = page.getByRole('table', { name: 'Events' });
    await events.getByRole('row').filter({ hasText: 'Hack night' }).waitFor();
    await members.getByRole('row').filter({ hasText: 'bob@example.org' }).waitFor();
    t.equal(await page.getByRole('list', { name: 'Problems in the sheet' }).count(), 0, 'the old problems are gone');
    await world.screenshot(page, 'points');
  });

  await t.test('deleting an event asks first, then takes its points back', async (t) => {
    await page.getByRole('button', { name: 'Delete Hack night' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Hack night?' });
    t.match(await dialog.textContent(), /All 2 entries of this event are deleted, and their 35 points/);
    await dialog.getByRole('button', { name: 'Delete event' }).click();
    await page.getByText('No events yet').waitFor();
    await members.getByRole('row').filter({ hasText: 'ada@example.org' }).getByRole('cell', { name: '120', exact: true }).first().waitFor();
    t.pass('Ada is back at 120');
  });

  await t.test('the Overview card', async (t) => {
    await sidebar.getByRole('link', { name: 'Overview' }).click();
    const card = page.getByTestId('points-card');
    await card.waitFor();
    await cardSays(t, card, '1 member with points; 120 points awarded this week.', 'Bob\'s only rows went with the event');
  });
  t.same(world.problems(page), []);
});
