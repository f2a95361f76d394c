// Explore → Integrations in a real browser: connect the Embeddings integration against the fake embeddings service,
// see it connected, Test shows the failure message for a wrong key and success for the right one, readable fields
// come back and the key never does, and Clear asks first, then disconnects it.
import t from 'tap';
import { allowOutside, startFakeEmbeddings } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

const KEY = 'emb-browser-key-0123456789';
const WRONG = 'emb-wrong-key-9876543210';

t.test('Explore: connect, test and clear an integration', async (t) => {
  allowOutside(t);
  const fake = await startFakeEmbeddings(t, { apiKey: KEY });
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/knowledge'], orgModules: { knowledge: true }, role: 'api',
    config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')] },
  });
  const { quad, org } = world;
  const page = await world.open();
  await world.signIn(page);
  await page.goto('/dashboard/explore?tab=integrations');
  const card = page.getByRole('region', { name: /^Embeddings/ });
  const form = card.getByRole('form', { name: 'Connect Embeddings' });
  await card.getByText('Not connected', { exact: true }).waitFor();

  await t.test('saving the fields connects it; a wrong key fails the test with what to fix', async (t) => {
    t.ok(await card.getByRole('button', { name: 'Test Embeddings' }).isDisabled(), 'nothing to test yet');
    await form.getByLabel('Base URL (ending /v1)').fill(fake.url);
    await form.getByLabel('Model').fill('org-model');
    await form.getByLabel('API key (optional)').fill(WRONG);
    await card.getByRole('button', { name: 'Save Embeddings' }).click();
    await card.getByText('Connected', { exact: true }).waitFor();
    t.equal(await form.getByLabel('API key (optional)').inputValue(), '', 'the key field is emptied');
    t.match(await card.textContent(), /Set \(write-only: never shown again\)/);
    const runs = await quad.orm.em.fork().getConnection().execute("select status from job_runs where organization_id = ? and name = 'knowledge.reembed'", [org.id]);
    t.same(runs, [{ status: 'queued' }], 'the save started knowledge.reembed');

    await card.getByRole('button', { name: 'Test Embeddings' }).click();
    const failed = card.getByRole('alert', { name: 'Test of Embeddings' });
    await failed.waitFor();
    t.match(await failed.textContent(), /^Test failed\. 401 from the embeddings service at 127\.0\.0\.2:\d+: check the key$/);
    await world.screenshot(page, 'integrations-test-failed');
  });

  await t.test('the right key passes the test', async (t) => {
    await form.getByLabel('API key (optional)').fill(KEY);
    await card.getByRole('button', { name: 'Save Embeddings' }).click();
    await card.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await card.getByRole('button', { name: 'Test Embeddings' }).click();
    const passed = card.getByRole('status', { name: 'Test of Embeddings' });
    await passed.waitFor();
    t.match(await passed.textContent(), /^Test passed\. The embeddings service at .* embedded a test text with model "org-model"/);
    t.equal(fake.requests.at(-1)?.key, KEY);
  });

  await t.test('after a reload the readable fields show their values and the key is nowhere', async (t) => {
    await page.reload();
    await card.getByText('Connected', { exact: true }).waitFor();
    t.equal(await form.getByLabel('Base URL (ending /v1)').inputValue(), fake.url);
    t.equal(await form.getByLabel('Model').inputValue(), 'org-model');
    t.equal(await form.getByLabel('API key (optional)').inputValue(), '');
    const html = await page.content();
    t.notOk(html.includes(KEY) || html.includes(WRONG), 'no key in the page');
    await world.screenshot(page, 'integrations');
  });

  await t.test('Clear asks first, then disconnects it', async (t) => {
    await card.getByRole('button', { name: 'Clear Embeddings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Clear Embeddings?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.ok(await card.getByText('Connected', { exact: true }).isVisible(), 'cancelled: still connected');
    await card.getByRole('button', { name: 'Clear Embeddings' }).click();
    await dialog.getByRole('button', { name: 'Clear' }).click();
    await card.getByText('Not connected', { exact: true }).waitFor();
    t.equal(await form.getByLabel('Base URL (ending /v1)').inputValue(), '');
    t.equal(await card.getByRole('button', { name: 'Clear Embeddings' }).count(), 0, 'nothing left to clear');
    t.same([...await quad.services.secrets.names(quad.emFor(org.id), org.id)], []);
  });
  t.same(world.problems(page), []);
});
