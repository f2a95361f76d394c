// Activity in a real browser: a notification resolved and reopened from the list, a bulk delete refused while a
// problem is selected (and the API refusing it too), a failed job run retried from the Job runs tab, and the CI
// tab's repo list saved and its runs shown (the fake GitHub).
import t from 'tap';
import { defineJob, defineModule } from '@quad/core';
import { startFakeGitHub } from '../fakes/github/index.js';
import { startBrowserWorld } from './harness.js';

let failing = true;

const probe = defineModule({
  name: 'probe', title: 'Probe', description: 'Events and a failing job for the Activity page tests', category: 'Tests',
  events: ['probe.happened'],
  jobs: [defineJob({
    name: 'probe.sync', maxAttempts: 1,
    async handler() { if (failing) throw new Error('the sync failed on purpose'); },
  })],
});

t.test('Activity', async (t) => {
  const github = await startFakeGitHub();
  t.teardown(() => github.close());
  github.addRepo('acme/site', { runs: [{ name: 'Build', head_branch: 'main', conclusion: 'success', status: 'completed', display_title: 'Fix the menu' }] });
  const world = await startBrowserWorld(t, { plugins: [probe], orgModules: { probe: true }, config: { GITHUB_API_URL: github.url } });
  const { quad, org } = world;
  const em = () => quad.orm.em.fork();
  const event = await quad.services.emit(em(), { orgId: org.id, kind: 'probe.happened', title: 'Deploy finished', message: 'site v2 is live' });
  await quad.services.raiseProblem(em(), { orgId: org.id, key: 'probe.stuck:1', title: 'Feed stuck', message: 'the feed cannot be fetched' });

  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Activity' }).click();
  await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
  const panel = page.getByRole('tabpanel');
  const row = (text: string) => panel.getByRole('row').filter({ hasText: text });

  await t.test('a notification is resolved and reopened', async (t) => {
    t.equal(await page.getByRole('tab', { name: 'Notifications' }).getAttribute('aria-selected'), 'true', 'Notifications is the first tab');
    await row('Deploy finished').getByText('open', { exact: true }).waitFor();
    await world.screenshot(page, 'activity-notifications');
    await page.getByRole('checkbox', { name: 'Select Deploy finished' }).check();
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByRole('status').filter({ hasText: 'Resolved 1 notification.' }).waitFor();
    await row('Deploy finished').getByText('resolved', { exact: true }).waitFor();
    const [resolved] = await em().getConnection().execute('select status, resolved_by from notifications where id = ?', [event.id]);
    t.match(resolved, { status: 'resolved', resolved_by: `officer:${world.officer.id}` });

    await page.getByRole('checkbox', { name: 'Select Deploy finished' }).check();
    await page.getByRole('button', { name: 'Reopen' }).click();
    await page.getByRole('status').filter({ hasText: 'Reopened 1 notification.' }).waitFor();
    await row('Deploy finished').getByText('open', { exact: true }).waitFor();
    t.equal((await em().getConnection().execute('select status from notifications where id = ?', [event.id]))[0].status, 'open');
  });

  await t.test('the status filter narrows the list', async (t) => {
    await page.getByLabel('Status').selectOption('resolved');
    await panel.getByText('No notifications').waitFor();
    await page.getByLabel('Status').selectOption('');
    await row('Feed stuck').waitFor();
    t.pass();
  });

  await t.test('delete is refused while a problem is selected, and says why', async (t) => {
    const remove = page.getByRole('button', { name: 'Delete' });
    await page.getByRole('checkbox', { name: 'Select Deploy finished' }).check();
    t.ok(await remove.isEnabled(), 'an event alone may be deleted');
    await page.getByRole('checkbox', { name: 'Select all shown notifications' }).check();
    t.ok(await page.getByRole('checkbox', { name: 'Select Feed stuck' }).isChecked(), 'select all picks the problem too');
    t.ok(await remove.isDisabled(), 'not with a problem selected');
    const reason = await remove.getAttribute('aria-describedby');
    t.match(await page.locator(`[id="${reason}"]`).textContent(), /Problems cannot be deleted/);
    await world.screenshot(page, 'activity-delete-refused');
    const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem('platform.tokens')!).access as string);
    const [problem] = await em().getConnection().execute("select id from notifications where category = 'problem'");
    const refused = await quad.api.inject({
      method: 'POST', url: '/api/dashboard/acm/notifications/delete', headers: { authorization: `Bearer ${token}` },
      payload: { ids: [event.id, Number(problem.id)] },
    });
    t.equal(refused.statusCode, 400);
    t.match(refused.json(), { reason: 'problem_not_deletable', ids: [Number(problem.id)] });

    await page.getByRole('checkbox', { name: 'Select all shown notifications' }).uncheck();
    await page.getByRole('checkbox', { name: 'Select Deploy finished' }).check();
    await remove.click();
    await page.getByRole('dialog', { name: 'Delete 1 notification?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted 1 notification.' }).waitFor();
    await row('Deploy finished').waitFor({ state: 'detached' });
    t.ok(await row('Feed stuck').isVisible(), 'the problem stays');
  });

  await t.test('a failed job run is retried from the Job runs tab', async (t) => {
    const { runId } = await quad.services.startJob(em(), 'probe.sync', {}, { orgId: org.id });
    t.equal((await quad.waitForRun(runId)).status, 'failed');
    failing = false;
    await page.getByRole('tab', { name: 'Job runs' }).click();
    t.match(page.url(), /tab=job-runs/);
    const retry = page.getByRole('button', { name: `Retry run #${runId} of probe.sync` });
    await retry.waitFor();
    await world.screenshot(page, 'activity-job-runs');
    await retry.click();
    const done = page.getByRole('status').filter({ hasText: `Run #${runId} of probe.sync runs again as run #` });
    await done.waitFor();
    const retried = Number(/as run #(\d+)/.exec((await done.textContent())!)![1]);
    t.equal((await quad.waitForRun(retried)).status, 'succeeded', 'the new run succeeds');
    await page.getByRole('button', { name: `Retry run #${runId} of probe.sync` }).click();
    await page.getByRole('alert').filter({ hasText: 'already retried' }).waitFor();
    t.pass('a second retry of the same run is refused, with the reason');
  });

  await t.test('CI runs: the repo list is saved and its runs shown', async (t) => {
    await page.goto('/dashboard/ci');
    await page.getByRole('tab', { name: 'CI runs', selected: true }).waitFor();
    await panel.getByText('No repos listed').waitFor();
    await page.getByLabel('Repos to follow').fill('acme/site\n');
    await page.getByRole('button', { name: 'Save repos' }).click();
    await page.getByRole('link', { name: 'Build' }).waitFor();
    t.ok(await panel.getByText('Fix the menu').isVisible(), 'the run\'s title');
    await world.screenshot(page, 'activity-ci');
    await page.getByLabel('Repos to follow').fill('not a repo');
    await page.getByRole('button', { name: 'Save repos' }).click();
    await page.getByRole('alert').filter({ hasText: 'The repos were not saved' }).waitFor();
    t.pass('a bad name is refused, with the reason');
  });

  await t.test('Errors: the failed job is in the log, and is resolved from it', async (t) => {
    await page.getByRole('tab', { name: 'Errors' }).click();
    await row('the sync failed on purpose').getByText('open', { exact: true }).waitFor();
    await world.screenshot(page, 'activity-errors');
    await page.getByRole('checkbox', { name: /^Select probe\.sync/ }).check();
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByRole('status').filter({ hasText: 'Resolved 1 error.' }).waitFor();
    await row('the sync failed on purpose').getByText('resolved', { exact: true }).waitFor();
    t.pass();
  });

  await t.test('Changes list what was done', async (t) => {
    await page.getByRole('tab', { name: 'Changes' }).click();
    await row('notifications.resolve').first().waitFor();
    t.ok(await row('job_runs.retry').first().isVisible(), 'the retry is in the audit log');
    t.ok(await row('dashboard.ci_repos').first().isVisible());
  });

  t.same(world.problems(page), []);
});
