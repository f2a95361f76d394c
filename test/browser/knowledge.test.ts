// The Knowledge page in a real browser, on the fake embeddings service: sources written through the machine API
// are listed grouped by domain (100 rows, then Show more), the reader pages through a long source, deleting asks
// first, settings save, reset to their default and show the API's error at the field, and the test search shows
// the vector and text lists beside the fused order.
import t from 'tap';
import { bearer, startFakeEmbeddings } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

t.test('the Knowledge page', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/knowledge'], orgModules: { knowledge: true },
    config: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-1' },
  });
  const { quad, org } = world;
  const { token } = await quad.issueToken(org.id, { scopes: ['knowledge:read', 'knowledge:write'] });
  const put = async (key: string, body: Record<string, unknown>) => {
    const res = await quad.api.inject({ method: 'PUT', url: `/api/knowledge/sources/${key}`, headers: bearer(token), payload: body });
    if (res.statusCode !== 201) throw new Error(`${key}: ${res.statusCode} ${res.body}`);
  };
  const pages = (...texts: string[]) => texts.map((content, ordinal) => ({ ordinal, content }));

  // 98 bulk sources sort first (by domain), so the first 100 rows end inside campus; handbook needs Show more.
  const bulk = Array.from({ length: 98 }, (_, i) => `bulk/item-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < bulk.length; i += 14) {
    await Promise.all(bulk.slice(i, i + 14).map((key) => put(key, { category: 'notes', title: `Note ${key.slice(-3)}`, chunks: pages(`Bulk note ${key}`) })));
  }
  await put('campus/a', { category: 'campus', title: 'Garage', chunks: pages('library parking garage') });
  await put('campus/b', { category: 'campus', title: 'Hours', chunks: pages('library hours') });
  await put('campus/c', { category: 'campus', title: 'Permits', chunks: pages('parking permits cost money') });
  // 501 page-text rows: a reader page holds 500.
  await put('handbook/guide', { category: 'guide', title: 'The handbook', chunks: pages(...Array.from({ length: 501 }, (_, i) => `Row ${i + 1} of the handbook.`)) });

  const page = await world.open();
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });

  await t.test('sources grouped by domain, 100 rows then Show more', async (t) => {
    await sidebar.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByRole('heading', { level: 1, name: 'Knowledge' }).waitFor();
    const campus = page.getByRole('table', { name: 'campus', exact: true });
    await campus.waitFor();
    t.equal(await page.getByRole('table', { name: 'bulk', exact: true }).getByRole('row').count(), 99, 'bulk: a header and 98 rows');
    t.equal(await campus.getByRole('row').count(), 3, 'campus: a header and the first 2 of 3 (100 rows shown)');
    t.equal(await page.getByRole('table', { name: 'handbook', exact: true }).count(), 0, 'handbook is past the first 100');
    const garage = campus.getByRole('row').filter({ hasText: 'campus/a' });
    t.match(await garage.textContent(), /Garage.*campus\/a.*campus.*No.*1.*fake-1/);
    await world.screenshot(page, 'knowledge-sources');
    await page.getByRole('button', { name: 'Show more (2 left)' }).click();
    await page.getByRole('table', { name: 'handbook', exact: true }).getByRole('row').filter({ hasText: 'handbook/guide' }).waitFor();
    t.equal(await campus.getByRole('row').count(), 4, 'campus/c too');
    t.equal(await page.getByRole('button', { name: /Show more/ }).count(), 0, 'nothing left');
    t.match(await page.getByRole('row').filter({ hasText: 'handbook/guide' }).textContent(), /The handbook.*guide.*501/);
  });

  await t.test('the reader pages through a source', async (t) => {
    await page.getByRole('button', { name: 'Read handbook/guide', exact: true }).click();
    const reader = page.getByRole('region', { name: 'Reading handbook/guide' });
    await reader.getByText('passages 1–500 of 501', { exact: false }).waitFor();
    const passages = reader.getByRole('list', { name: 'Passages' }).getByRole('listitem');
    t.equal(await passages.count(), 500);
    t.equal(await passages.first().textContent(), 'Row 1 of the handbook.');
    await world.screenshot(page, 'knowledge-reader');
    await reader.getByRole('button', { name: 'Next page' }).click();
    await reader.getByText('passages 501–501 of 501', { exact: false }).waitFor();
    t.equal(await passages.count(), 1);
    t.equal(await passages.first().textContent(), 'Row 501 of the handbook.');
    t.ok(await reader.getByRole('button', { name: 'Next page' }).isDisabled(), 'the last page');
    await reader.getByRole('button', { name: 'Close' }).click();
    await reader.waitFor({ state: 'detached' });
  });

  await t.test('delete asks first, then removes the source (and closes its reader)', async (t) => {
    await page.getByRole('button', { name: 'Read campus/c', exact: true }).click();
    const reader = page.getByRole('region', { name: 'Reading campus/c' });
    await reader.getByText('passages 1–1 of 1', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Delete campus/c', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete campus/c?' });
    await dialog.waitFor();
    await world.screenshot(page, 'knowledge-delete');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    t.equal(await page.getByRole('row').filter({ hasText: 'campus/c' }).count(), 1, 'cancel keeps it');
    await page.getByRole('button', { name: 'Delete campus/c', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete source' }).click();
    await page.getByRole('row').filter({ hasText: 'campus/c' }).waitFor({ state: 'detached' });
    await reader.waitFor({ state: 'detached' });
    const res = await quad.api.inject({ url: '/api/knowledge/sources/campus/c', headers: bearer(token) });
    t.equal(res.statusCode, 404, 'gone from the API');
  });

  const settings = page.getByRole('form', { name: 'Knowledge settings' });
  const stored = async () => (await quad.services.orgConfig.get<Record<string, unknown>>(quad.orm.em.fork(), org.id, 'knowledge')) ?? {};

  const tabs = page.getByRole('tablist', { name: 'Knowledge' });

  await t.test('settings: ranges and defaults, save, reset, the API\'s error at the field', async (t) => {
    await tabs.getByRole('tab', { name: 'Settings' }).click();
    await page.getByText('Embedder: fake-1.').waitFor();
    const topK = settings.getByLabel('Results (top_k)', { exact: true });
    t.equal(await topK.inputValue(), '8');
    await settings.getByText('1–50; default 8').waitFor();
    await settings.getByText('0.05–2; default 0.6').waitFor();
    await topK.fill('5');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    t.same(await stored(), { top_k: 5 });

    await settings.getByLabel('Passage overlap (characters)', { exact: true }).fill('200');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const overlap = settings.getByLabel('Passage overlap (characters)', { exact: true });
    await page.waitForFunction(() => document.querySelector('[aria-invalid="true"]') !== null);
    t.equal(await overlap.getAttribute('aria-invalid'), 'true', 'marked at the field');
    const error = settings.getByRole('alert');
    t.match(await error.textContent(), /at most half of chunk_chars \(300\), so 150 or less/);
    await world.screenshot(page, 'knowledge-settings-error');
    t.same(await stored(), { top_k: 5 }, 'nothing saved');

    await settings.getByRole('button', { name: 'Reset Results (top_k) to default' }).click();
    await page.getByRole('status').filter({ hasText: 'Results (top_k) is back to its default.' }).waitFor();
    await page.waitForFunction(() => (document.querySelector('input[type=number][min="1"][max="50"]') as HTMLInputElement | null)?.value === '8');
    t.same(await stored(), {}, 'the stored value is gone');
    t.equal(await settings.getByLabel('Passage overlap (characters)', { exact: true }).inputValue(), '0', 'the form shows the saved values again');
  });

  await t.test('test search: the fused order and both lists', async (t) => {
    await tabs.getByRole('tab', { name: 'Test search' }).click();
    const form = page.getByRole('form', { name: 'Test search' });
    await form.getByLabel('Query').fill('library parking');
    await form.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Mode hybrid; the vector search ran; 2 results.').waitFor();
    const cells = async (name: string, column: number) =>
      page.getByRole('table', { name, exact: true }).locator(`tbody tr td:nth-child(${column})`).allTextContents();
    t.same(await cells('Fused results', 2), ['campus/a', 'campus/b'], 'A is in both lists, B in one');
    t.same(await cells('Vector list', 2), ['campus/a #0', 'campus/b #0']);
    t.same(await cells('Text list', 2), ['campus/a #0'], 'only A has both words');
    await world.screenshot(page, 'knowledge-search');

    await form.getByLabel('Mode').selectOption('text');
    await form.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Mode text; text only (no vector search); 1 result.').waitFor();
    await page.getByText('No vector results.').waitFor();
    t.same(await cells('Fused results', 2), ['campus/a']);

    await form.getByLabel('Mode').selectOption('');
    await form.getByLabel('Results').fill('1');
    await form.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Mode hybrid; the vector search ran; 1 result.').waitFor();
    t.same(await cells('Fused results', 2), ['campus/a'], 'top_k 1');
    t.same(await cells('Vector list', 2), ['campus/a #0', 'campus/b #0'], 'the lists are the candidates before the cut');
  });

  t.same(world.problems(page), []);
});
