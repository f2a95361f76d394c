// The feeds module's Job alerts page in a real browser, against the fake raw-file host and a fake Discord as the
// webhook receiver: the old `alerts` address opens it; a feed added through the form is listed (the webhook URL never
// shown); Run now with "Post current items" starts a first run that posts what is listed, a second Run now while it
// is queued says so (409), and the run shows in the feed's history and on the Overview card; Delete asks first; the
// Hackathons page has its own form. The service runs as the API role: a started run stays queued and the test runs
// its job handler as the worker would (plugins/feeds/test/world.ts).
import t from 'tap';
import { allowOutside, startFakeDiscord, startFakeRepoFiles } from '@quad/core/testing';
import { cardSays, startBrowserWorld } from './harness.js';

allowOutside(t);

const README = [
  '| Company | Role | Location | Application/Link | Date Posted |',
  '| ------- | ---- | -------- | ---------------- | ----------- |',
  '| **Stripe** | SWE Intern | Remote in USA | <a href="https://jobs.example/stripe?utm_source=list">Apply</a> | Nov 20 |',
  '| **Figma** | Design Engineering Intern | New York, NY | <a href="https://jobs.example/figma">Apply</a> | Nov 21 |',
].join('\n');

t.test('Job alerts: add a feed, Run now, its history, delete it', async (t) => {
  const receiver = await startFakeDiscord();
  const repo = await startFakeRepoFiles();
  t.teardown(() => Promise.all([receiver.close(), repo.close()]));
  const hook = receiver.addWebhook();
  repo.put('acme/jobs', 'main', 'README.md', README);
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/feeds'], orgModules: { feeds: true }, role: 'api',
    config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')], DISCORD_WEBHOOK_URL_BASE: `${receiver.url}/api/webhooks/`, FEEDS_REPO_RAW_URL: repo.url },
  });
  const { quad, org } = world;
  const sql = (text: string) => quad.orm.em.fork().getConnection().execute(text);
  const queuedRuns = async () => (await sql(`select j.payload from graphile_worker._private_jobs j
    join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'feeds.run'`)).map((r) => r.payload as Record<string, unknown>);

  const page = await world.open();
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
  const table = page.getByRole('table', { name: 'Job alert feeds' });
  const feedRow = table.getByRole('row').filter({ hasText: 'interns' });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const runAnswer = () => page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/feeds/interns/run')).then((r) => r.status());

  await t.test('the old address opens the page; a feed added through the form is listed', async (t) => {
    await page.goto('/dashboard/alerts');
    await page.getByRole('heading', { level: 1, name: 'Job alerts' }).waitFor();
    t.match(page.url(), /\/dashboard\/job-alerts$/, 'alerts opens Job alerts');
    const form = page.getByRole('form', { name: 'Add a job alert feed' });
    await form.getByLabel('Key', { exact: true }).fill('interns');
    await form.getByLabel('Discord webhook URL').fill(hook.url);
    await form.getByLabel('Repository').fill('acme/jobs');
    t.equal(await form.getByLabel('Branch').inputValue(), 'main', 'the config fields start at their defaults');
    await form.getByLabel('Posted within (days)').fill('0');
    await form.getByRole('button', { name: 'Add feed' }).click();
    await status('Added interns').waitFor();
    await feedRow.waitFor();
    t.match(await feedRow.textContent(), /acme\/jobs \(main, README\.md\).*Every 3 h.*Never run/, 'schedule and last run');
    t.notOk((await page.content()).includes(hook.token), 'the webhook URL is not in the page');
    await world.screenshot(page, 'feeds-job-alerts');
  });

  await t.test('Run now posts the current items on a first run, says 409 clearly, and shows the run in the history', async (t) => {
    await feedRow.getByLabel('Post current items').check();
    let answer = runAnswer();
    await feedRow.getByRole('button', { name: 'Run interns now' }).click();
    await status('Running interns…').waitFor();
    t.equal(await answer, 202);
    await page.getByRole('heading', { name: 'History of interns' }).waitFor();
    t.match(await queuedRuns(), [{ key: 'interns', trigger: 'manual', post_existing: true }], 'the run is queued with post_existing');

    // A fresh page, as another officer would have it: the run is still queued.
    await page.reload();
    answer = runAnswer();
    await feedRow.getByRole('button', { name: 'Run interns now' }).click();
    t.equal(await answer, 409);
    await status('A run of interns is already queued or running').waitFor();
    t.equal((await queuedRuns()).length, 1, 'no second run');

    const [payload] = await queuedRuns();
    await quad.runJob('feeds.run', payload, org.id);

    await status('Ran interns: 2 found, 2 new, 2 posts.').waitFor();
    t.equal(receiver.webhookPosts.filter((p) => p.webhookId === hook.id).length, 2, 'both items went to the webhook');
    const runs = page.getByRole('table', { name: 'Runs of interns' });
    await runs.getByRole('row').nth(1).waitFor();
    t.match(await runs.getByRole('row').nth(1).textContent(), /Run now\s*2\s*2\s*2/, 'the run: started by Run now, 2 found, 2 new, 2 posted');
    t.equal(await page.getByRole('table', { name: 'Items of interns' }).getByRole('cell', { name: 'Posted', exact: true }).count(), 2);
    await feedRow.getByText('2 found, 2 new, 2 posted').waitFor();
    t.notOk(await feedRow.getByLabel('Post current items').isVisible(), 'no first run any more');
    await world.screenshot(page, 'feeds-history');
  });

  await t.test('the Overview card counts the feeds and posts', async (t) => {
    await sidebar.getByRole('link', { name: 'Overview' }).click();
    const card = page.getByTestId('feeds-card');
    await card.waitFor();
    await cardSays(t, card, '1 job alert and 0 hackathon feeds; 0 failing; 2 posts.');
    await sidebar.getByRole('link', { name: 'Job alerts' }).click();
  });

  await t.test('Delete asks first', async (t) => {
    await feedRow.getByRole('button', { name: 'Delete interns' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete interns?' });
    await dialog.getByRole('button', { name: 'Delete feed' }).click();
    await page.getByText('No feeds yet').waitFor();
    t.equal(await page.getByRole('heading', { name: 'History of interns' }).count(), 0, 'its history closed');
    t.same(await sql(`select key from feeds where organization_id = ${Number(org.id)}`), []);
  });

  await t.test('Hackathons: the same page for the other kind, its listings all chosen', async (t) => {
    await sidebar.getByRole('link', { name: 'Hackathons' }).click();
    const form = page.getByRole('form', { name: 'Add a hackathon feed' });
    for (const listing of ['Hack Club Hackathons', 'Euro-Hackathons', 'Hackalist']) t.ok(await form.getByLabel(listing).isChecked(), listing);
    t.equal(await form.getByLabel('Starting in at most (days)').inputValue(), '90');
    await page.getByText('No feeds yet').waitFor();
  });
  t.same(world.problems(page), []);
});
