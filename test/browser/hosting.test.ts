// The hosting module's Hosting page in a real browser, against the fake provider and its proxy: the old `apps`
// address opens it; an app registered through the form is listed; Deploy starts a deploy (the test runs the jobs as
// the worker would), the app turns live once its health check passes through the proxy, and its pod shows; a second
// deploy never healthy fails and rolls back on its own (the history says so); Roll back with nothing older says why
// (409); Delete asks first and terminates the pod. The service runs as the API role (plugins/hosting/test/world.ts).
import t from 'tap';
import { startFakeHostprov } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

t.test('Hosting: register, deploy, live pod, failed deploy rolled back, delete', async (t) => {
  const fake = await startFakeHostprov({ apiKey: 'hp-browser' });
  t.teardown(() => fake.close());
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/pods', './plugins/hosting'], orgModules: { hostprov: true }, role: 'api',
    config: { SECRETS_KEY: [Buffer.alloc(32, 4).toString('base64')], HOSTPROV_API_URL: fake.url, HOSTPROV_PROXY_URL: fake.proxyUrl },
  });
  const { quad, org } = world;
  await quad.services.secrets.set(quad.emFor(org.id), org.id, 'hostprov_api_key', 'hp-browser');
  const sql = (text: string) => quad.orm.em.fork().getConnection().execute(text);
  const done = new Set<number>();
  /** Run the queued runs of a job once each, as the worker would; `now` passes a check's deadline. */
  const runQueued = async (name: string, extra: Record<string, unknown> = {}) => {
    const runs = await sql(`select id, payload from job_runs where status = 'queued' and name = '${name}' order by id`);
    for (const run of runs.filter((r) => !done.has(Number(r.id)))) {
      done.add(Number(run.id));
      await quad.runJob(name, { ...run.payload, ...extra }, org.id);
    }
  };

  const page = await world.open();
  await world.signIn(page);
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const appRow = page.getByRole('table', { name: 'Apps' }).getByRole('row').filter({ hasText: 'site' });
  const deploys = page.getByRole('table', { name: 'Deploys of site' });

  await t.test('the old address opens Hosting; the form registers an app', async (t) => {
    await page.goto('/dashboard/apps');
    await page.getByRole('heading', { level: 1, name: 'Hosting' }).waitFor();
    t.match(page.url(), /\/dashboard\/hosting$/, 'apps opens Hosting');
    await page.getByText('No apps yet').waitFor();
    const form = page.getByRole('form', { name: 'Register an app' });
    await form.getByLabel('Name').fill('site');
    await form.getByLabel('Image').fill('ghcr.io/acm/site:v1');
    await form.getByLabel('Health path').fill('/healthz');
    await form.getByRole('button', { name: 'Register app' }).click();
    await page.getByText('body.image: the repository without a tag').waitFor();
    await form.getByLabel('Image').fill('ghcr.io/acm/site');
    await form.getByLabel('Environment', { exact: true }).fill('MODE=production');
    await form.getByRole('button', { name: 'Register app' }).click();
    await status('Registered site').waitFor();
    await appRow.waitFor();
    t.match(await appRow.textContent(), /ghcr\.io\/acm\/site.*Not deployed/);
  });

  await t.test('Deploy: the app is live once its health check passes; its pod shows', async (t) => {
    await appRow.getByRole('button', { name: 'Open site' }).click();
    const deployForm = page.getByRole('form', { name: 'Deploy site' });
    await deployForm.getByLabel('Tag or digest').fill('v1');
    await deployForm.getByRole('button', { name: 'Deploy' }).click();
    await status('Deploying ghcr.io/acm/site:v1').waitFor();
    await runQueued('hostprov.deploy');
    const podId = fake.pods[0]!.id;
    fake.proxy(podId, 8080, { status: 200 });
    await runQueued('hostprov.check');
    await page.reload();
    await appRow.getByRole('button', { name: 'Open site' }).click();
    await deploys.getByRole('row').nth(1).waitFor();
    t.match(await deploys.getByRole('row').nth(1).textContent(), /v1.*Deploy.*Healthy \(live\)/);
    t.match(await appRow.textContent(), /v1.*Healthy/);
    await page.getByTestId('hosting-pod').waitFor();
    t.match(await page.getByTestId('hosting-pod').textContent(), new RegExp(`Pod ${podId}: RUNNING, image ghcr.io/acm/site:v1`));
    await world.screenshot(page, 'hosting-app');

    await page.getByRole('button', { name: 'Roll back' }).click();
    await page.getByText('site has no healthy deploy before the current one').waitFor();
  });

  await t.test('a deploy never healthy fails and rolls back on its own', async (t) => {
    const podId = fake.pods[0]!.id;
    await page.getByLabel('Tag or digest').fill('v2');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await status('Deploying ghcr.io/acm/site:v2').waitFor();
    await runQueued('hostprov.deploy');
    fake.proxy(podId, 8080, { status: 500 });
    await runQueued('hostprov.check', { now: '2999-01-01T00:00:00.000Z' });
    await runQueued('hostprov.deploy');
    fake.proxy(podId, 8080, { status: 200 });
    await runQueued('hostprov.check');
    await page.reload();
    await appRow.getByRole('button', { name: 'Open site' }).click();
    await deploys.getByRole('row').nth(3).waitFor();
    const rows = await deploys.getByRole('row').allTextContents();
    t.match(rows[1], /v1.*Automatic roll back to #1.*Healthy \(live\)/);
    t.match(rows[2], /v2.*Failed.*Not healthy within 600 s/);
    t.equal(fake.pods[0]!.image, 'ghcr.io/acm/site:v1');
  });

  await t.test('Delete asks first and terminates the pod', async (t) => {
    await page.getByRole('button', { name: 'Delete site' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete site?' });
    await dialog.getByText('Its pod is terminated at the provider').waitFor();
    await dialog.getByRole('button', { name: 'Delete app' }).click();
    await page.getByText('No apps yet').waitFor();
    t.equal(fake.pods.length, 0, 'the pod is gone');
  });
  t.same(world.problems(page), []);
});
