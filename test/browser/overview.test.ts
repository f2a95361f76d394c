// The Overview in a real browser: the counts, the open problems, a module's section, the recent changes and job
// runs, and a chart (with its text summary and table) for each series of the modules that are on, for 7, 30 or
// 90 days; a module switched off has no series.
import t from 'tap';
import { defineModule } from '@quad/core';
import { startBrowserWorld } from './harness.js';

const gauges = defineModule({
  name: 'gauges', title: 'Gauges', description: 'A dashboard section and a series for the Overview tests', category: 'Tests',
  dashboard: {
    async overview() { return { members: 42, sessions: [{ id: 's1', title: 'Intro night' }] }; },
    async trends(_ctx, { days }) {
      return [{ key: 'gauges.members', title: 'Members', values: Array.from({ length: days }, (_, i) => i + 1) }];
    },
  },
});

t.test('Overview', async (t) => {
  const world = await startBrowserWorld(t, { plugins: [gauges], orgModules: { gauges: true } });
  const { quad, org } = world;
  const em = () => quad.orm.em.fork();
  await quad.services.raiseProblem(em(), { orgId: org.id, key: 'gauges.stuck:1', title: 'Gauge stuck', message: 'no reading' });
  await quad.services.raiseProblem(em(), { orgId: org.id, key: 'gauges.stuck:2', title: 'Second gauge stuck' });
  const page = await world.open();
  await world.signIn(page);

  await t.test('counts, problems and sections', async (t) => {
    await page.getByRole('link', { name: 'Open problems: 2' }).waitFor();
    t.ok(await page.getByRole('link', { name: 'Open errors: 0' }).isVisible());
    t.ok(await page.getByText('Gauge stuck', { exact: true }).isVisible(), 'the open problems');
    const section = page.getByRole('region', { name: 'Gauges', exact: true });
    t.match(await section.textContent(), /Members42/);
    t.match(await section.textContent(), /Intro night/);
    t.ok(await page.getByRole('region', { name: 'Recent changes' }).isVisible());
    t.ok(await page.getByRole('region', { name: 'CI' }).getByText('No repos listed').isVisible());
  });

  await t.test('a chart for the module\'s series, with its words', async (t) => {
    const chart = page.getByRole('figure', { name: 'Members' });
    await chart.waitFor();
    await chart.locator('canvas').first().waitFor();
    t.match(await chart.textContent(), /30 days from .*: total 465, highest 30 on .*, last day 30\./);
    t.ok(await page.getByRole('figure', { name: 'Changes' }).isVisible(), 'the core\'s series too');
    await world.screenshot(page, 'overview');

    await page.getByLabel('Period').selectOption('7');
    await chart.getByText(/^7 days from .*: total 28,/).waitFor();
    t.match(page.url(), /days=7/);
    await chart.getByText('Values of Members').click();
    t.equal(await chart.getByRole('row').count(), 8, 'a header and 7 days');
  });

  await t.test('a module switched off has no series', async (t) => {
    await quad.updateOrg(org.id, { modules: {} });
    await page.reload();
    await page.getByRole('figure', { name: 'Changes' }).waitFor();
    t.equal(await page.getByRole('figure', { name: 'Members' }).count(), 0);
    t.equal(await page.getByRole('region', { name: 'Gauges', exact: true }).count(), 0, 'nor a section');
  });

  t.same(world.problems(page), []);
});
