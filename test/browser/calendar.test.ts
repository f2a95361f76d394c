// The calendar module's Calendar page in a real browser: the old settings#calendar address opens it; an event added
// through the form (New York time, repeating weekly three times) is listed three times; Edit changes it; the feed URL
// is shown once, serves the event as text/calendar, and stops working when replaced or revoked; the Discord sync
// switch and Sync now (a second start while one is queued says so); Delete asks first.
import t from 'tap';
import { startBrowserWorld } from './harness.js';

t.test('Calendar: add, edit, feed URL, Discord sync, delete', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./plugins/calendar'], orgModules: { calendar: true }, role: 'api' });
  const { org, base } = world;
  const sql = (text: string) => world.quad.orm.em.fork().getConnection().execute(text);
  const page = await world.open();
  await world.signIn(page);
  const table = page.getByRole('table', { name: 'Upcoming events' });
  const rows = table.getByRole('row').filter({ hasText: 'Game night' });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  // Tomorrow in New York, as the form's datetime-local wants it.
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(Date.now() + 86_400_000));

  await t.test('the old address opens the page; an event added through the form is listed per occurrence', async (t) => {
    await page.goto('/dashboard/settings#calendar');
    await page.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();
    t.match(page.url(), /\/dashboard\/calendar$/);
    const form = page.getByRole('form', { name: 'Add an event' });
    t.ok(await form.getByLabel('Time zone').inputValue(), 'a zone is chosen (the browser\'s)');
    await form.getByLabel('Title').fill('Game night');
    await form.getByLabel('Starts').fill(`${day}T18:00`);
    await form.getByLabel('Ends').fill(`${day}T20:00`);
    await form.getByLabel('Time zone').selectOption('America/New_York');
    await form.getByLabel('Repeats').selectOption('weekly');
    await form.getByLabel('Times (blank: no end)').fill('3');
    await form.getByLabel('Location').fill('Student union');
    await form.getByRole('button', { name: 'Add event' }).click();
    await status('Added Game night.').waitFor();
    await rows.nth(2).waitFor();
    t.equal(await rows.count(), 3, 'three occurrences');
    t.match(await rows.first().textContent(), /6:00\s?PM.*America\/New_York.*Student union · repeats · public/);
    const [stored] = await sql(`select recurrence, time_zone, start_at from calendar_events where organization_id = ${Number(org.id)}`);
    t.match(stored, { recurrence: 'FREQ=WEEKLY;COUNT=3', time_zone: 'America/New_York' });
    await world.screenshot(page, 'calendar');
  });

  await t.test('Edit changes the event (the form starts from its values)', async (t) => {
    await rows.first().getByRole('button', { name: 'Edit Game night' }).click();
    const form = page.getByRole('form', { name: 'Edit Game night' });
    t.equal(await form.getByLabel('Starts').inputValue(), `${day}T18:00`, 'local time in the event\'s zone');
    t.equal(await form.getByLabel('Repeats').inputValue(), 'weekly');
    await form.getByLabel('Location').fill('Library');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('form', { name: 'Add an event' }).waitFor();
    await rows.first().getByText(/Library/).waitFor();
    const [stored] = await sql(`select sequence from calendar_events where organization_id = ${Number(org.id)}`);
    t.equal(stored!.sequence, 1);
  });

  await t.test('the feed URL: shown once, serves the calendar, replaced and revoked', async (t) => {
    await page.getByRole('button', { name: 'Create feed URL' }).click();
    const url = await page.getByTestId('feed-url').textContent();
    t.match(url, new RegExp(`^${base}/api/calendar/feed/[A-Za-z0-9_-]{43}\\.ics$`));
    const feed = await fetch(url!);
    t.equal(feed.status, 200);
    t.match(feed.headers.get('content-type'), /text\/calendar/);
    t.match(await feed.text(), /RRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Game night\r\nLOCATION:Library\r\n/);
    await page.getByRole('button', { name: 'New URL' }).click();
    await page.getByTestId('feed-url').filter({ hasNotText: url! }).waitFor();
    t.equal((await fetch(url!)).status, 404, 'the old URL stops working');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke the feed URL?' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('There is no URL yet.').waitFor();
    t.equal(await page.getByTestId('feed-url').count(), 0);
  });

  await t.test('Discord sync: the switch and Sync now, one at a time', async (t) => {
    // The switch shows the stored setting: it turns on once the server said so.
    await page.getByLabel('Sync Discord scheduled events').click();
    await status('Discord sync is on.').waitFor();
    await page.getByLabel('Sync Discord scheduled events').and(page.locator(':checked')).waitFor();
    const answer = () => page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/sync')).then((r) => r.status());
    let started = answer();
    await page.getByRole('button', { name: 'Sync now' }).click();
    t.equal(await started, 202);
    await status('Sync started').waitFor();
    started = answer();
    await page.getByRole('button', { name: 'Sync now' }).click();
    t.equal(await started, 409);
    await page.getByText(/already running/).waitFor();
  });

  await t.test('Delete asks first', async (t) => {
    await rows.first().getByRole('button', { name: 'Delete Game night' }).click();
    await page.getByRole('dialog', { name: 'Delete Game night?' }).getByRole('button', { name: 'Delete event' }).click();
    await page.getByText('Nothing in the next 60 days').waitFor();
    t.same(await sql(`select id from calendar_events where organization_id = ${Number(org.id)}`), []);
  });
  t.same(world.problems(page), []);
});
