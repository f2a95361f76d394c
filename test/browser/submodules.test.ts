// Explore's Submodules tab, brought by the submodules module's own bundle (manifest pages.exploreTabs), in a real
// browser against the fake campus sites: every submodule as a card with what it brings, Subscribe marks it subscribed
// with one subscriber (and writes the row), a full limit submodules.subscriptions (1 here) is said with its numbers,
// and End subscription asks first.
import t from 'tap';
import { startFakeCampus } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

t.test('Explore → Submodules: the catalog, subscribe, the limit, end', async (t) => {
  const campus = await startFakeCampus(t);
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/submodules'], orgModules: { submodules: true },
    config: { SUBMODULES_BASE_URLS: [`campus.*=${campus.url}`], LIMIT_SUBMODULES_SUBSCRIPTIONS: 1 },
  });
  const { quad, org } = world;
  const rows = async () => (await quad.orm.em.fork().getConnection().execute(
    'select submodule from submodules_subscriptions where organization_id = ? order by submodule', [org.id])).map((r) => r.submodule as string);

  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('link', { name: 'Explore' }).click();
  await page.getByRole('tab', { name: 'Submodules' }).click();
  const campusCard = page.getByRole('region', { name: 'Campus', exact: true });
  const careersCard = page.getByRole('region', { name: 'Careers', exact: true });
  const usage = page.getByRole('progressbar', { name: 'Subscriptions' });

  await t.test('every submodule as a card, with what it brings', async (t) => {
    await campusCard.waitFor();
    await careersCard.waitFor();
    const text = await campusCard.textContent();
    t.match(text, /Not subscribed/);
    t.match(text, /28 pages; not crawled/, 'shared pages (no knowledge module here)');
    t.match(text, /16 live queries.*Class search: ASU class sections of one term/, 'live queries with their descriptions (the ASU kit)');
    t.match(text, /Subscribers0 orgs/);
    t.equal(await campusCard.getByRole('link', { name: 'Course management' }).getAttribute('href'), `${campus.url}/`, 'the course-management link on the deployment\'s base');
    t.match(await careersCard.textContent(), /Feed presets.*Software internships.*New-grad roles.*Hackathons/);
    t.equal(await usage.getAttribute('aria-valuetext'), '0 of 1', 'the limit\'s use and value');
    await world.screenshot(page, 'explore-submodules');
  });

  await t.test('Subscribe marks it subscribed, one subscriber, and writes the row', async (t) => {
    await campusCard.getByRole('button', { name: 'Subscribe to Campus' }).click();
    await campusCard.getByRole('status').filter({ hasText: 'Subscribed to Campus.' }).waitFor();
    t.match(await campusCard.textContent(), /Subscribed.*Subscribers1 orgSubscribed since/, 'marked subscribed, one subscriber');
    t.ok(await campusCard.getByRole('button', { name: 'End subscription to Campus' }).isVisible());
    t.same(await rows(), ['campus']);
    t.equal(await usage.getAttribute('aria-valuetext'), '1 of 1, near the limit');
  });

  await t.test('a full limit is said with its numbers', async (t) => {
    await careersCard.getByRole('button', { name: 'Subscribe to Careers' }).click();
    const alert = careersCard.getByRole('alert');
    await alert.waitFor();
    t.match(await alert.textContent(), new RegExp(`Limit reached\\. ${org.name} subscribes to 1 of at most 1 submodule`));
    t.same(await rows(), ['campus'], 'nothing added');
    await world.screenshot(page, 'explore-submodules-limit');
  });

  await t.test('End subscription asks first', async (t) => {
    await campusCard.getByRole('button', { name: 'End subscription to Campus' }).click();
    const dialog = page.getByRole('dialog', { name: 'End the subscription to Campus?' });
    await dialog.waitFor();
    t.match(await dialog.textContent(), /Feeds already made from them keep running/);
    await dialog.getByRole('button', { name: 'End subscription' }).click();
    await campusCard.getByRole('button', { name: 'Subscribe to Campus' }).waitFor();
    t.match(await campusCard.textContent(), /Not subscribed.*Subscribers0 orgs/);
    t.same(await rows(), [], 'the row is deleted');
  });
  t.same(world.problems(page), []);
});
