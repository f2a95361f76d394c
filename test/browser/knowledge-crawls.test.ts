// The Knowledge page's crawls, uploads and run log in a real browser, with the job worker running and pages served
// by fake sites on the test's outside address: a crawl added through the form (the server's error beside it
// first), Run now followed from "Crawling…" to its outcome and the new source, a page answering 500 shown as the
// crawl's error (on Crawls and Sources), force, 409 while a crawl of the key runs, uploads checked against the caps
// before sending and answered per file, the run log (50 rows, Show more, Failed only) here and in Activity, Re-crawl
// all and its 409, and Delete (the source stays).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { OUTSIDE_HOST, allowOutside, bearer, startFakeSite, type TeardownHost } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

allowOutside(t);

const article = (title: string, topic: string) => `<!doctype html><html><head><title>${title}</title></head><body><main>
  ${Array.from({ length: 6 }, (_, i) => `<p>The ${topic} paragraph ${i} tells members about opening hours, study rooms and the quiet floor.</p>`).join('\n')}
  </main></body></html>`;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

/** A page that answers only once the test releases it (and again after hold()): a crawl of it runs meanwhile. */
async function startHeldPage(t: TeardownHost) {
  let gate = deferred();
  let asked = deferred();
  const server = createServer((req, res) => {
    if (req.url !== '/slow') { res.writeHead(404); return res.end(); }
    asked.resolve();
    void gate.promise.then(() => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(article('Slow page', 'slow')); });
  });
  await new Promise<void>((resolve) => server.listen(0, OUTSIDE_HOST, resolve));
  t.teardown(() => new Promise<void>((resolve) => { gate.resolve(); server.closeAllConnections(); server.close(() => resolve()); }));
  return {
    origin: `http://${OUTSIDE_HOST}:${(server.address() as AddressInfo).port}`,
    /** Resolves once a crawl asks for the page. */
    asked: () => asked.promise,
    release: () => gate.resolve(),
    hold: () => { gate = deferred(); asked = deferred(); },
  };
}

t.test('crawls, uploads and the run log', async (t) => {
  const site = await startFakeSite(t);
  site.set('/hours', { body: article('Library Hours', 'library') });
  const held = await startHeldPage(t);
  // role all: the job worker runs the crawls.
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/knowledge'], orgModules: { knowledge: true }, role: 'all', config: { KNOWLEDGE_CHUNK_CHARS: 200 },
  });
  const { quad, org } = world;
  const { token } = await quad.issueToken(org.id, { scopes: ['knowledge:read', 'knowledge:write'] });
  const sql = (text: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(text, params as never[]);
  // 60 older rows, so the run log has more than one page of 50.
  await sql(`insert into knowledge_runs (organization_id, source_key, kind, started_at, duration_ms, changed, passages, error)
    select ?, 'bulk/run-' || lpad(n::text, 2, '0'), 'crawl', now() - interval '1 day' + n * interval '1 second', 120, false, 0, null
    from generate_series(1, 60) n`, [org.id]);
  // Disabled: the schedule leaves it alone (Run now still crawls it), so only this test starts its crawls.
  const slow = await quad.api.inject({ method: 'PUT', url: '/api/knowledge/crawls/slow/page', headers: bearer(token), payload: { url: `${held.origin}/slow`, enabled: false } });
  t.equal(slow.statusCode, 201, slow.body);

  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Knowledge' }).click();
  await page.getByRole('heading', { level: 1, name: 'Knowledge' }).waitFor();
  const tabs = page.getByRole('tablist', { name: 'Knowledge' });
  const crawls = page.getByRole('table', { name: 'Crawls', exact: true });
  const crawlRow = (key: string) => crawls.getByRole('row').filter({ has: page.getByText(key, { exact: true }) });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

  await t.test('a crawl is added through the form; the server\'s error is shown beside it first', async (t) => {
    await tabs.getByRole('tab', { name: 'Crawls' }).click();
    t.match(await crawlRow('slow/page').textContent(), /Every 24 h.*Disabled: not scheduled.*never/, 'the disabled record: no next crawl, never attempted');
    const form = page.getByRole('form', { name: 'Add crawl' });
    await form.getByLabel('Key').fill('site/hours');
    await form.getByLabel('URL').fill('ftp://example.com/hours');
    await form.getByLabel('Category').fill('library');
    await form.getByLabel('Every (hours)').fill('12');
    await form.getByRole('button', { name: 'Add crawl' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Crawl not saved' });
    await alert.waitFor();
    t.match(await alert.textContent(), /only http and https URLs are crawled/);
    t.equal(await form.getByLabel('URL').getAttribute('aria-invalid'), 'true', 'the URL is marked');
    await world.screenshot(page, 'knowledge-crawl-error');

    await form.getByLabel('URL').fill(`${site.origin}/hours`);
    await form.getByRole('button', { name: 'Add crawl' }).click();
    await status('Crawl site/hours added').waitFor();
    const added = crawlRow('site/hours');
    await added.waitFor();
    t.match(await added.textContent(), /library.*Every 12 h.*Due now.*never/);
    t.equal(await added.getByRole('link', { name: `${site.origin}/hours` }).getAttribute('href'), `${site.origin}/hours`, 'the URL is a link');
    t.equal(await form.getByLabel('Key').inputValue(), '', 'the form is empty again');
  });

  await t.test('Run now: "Crawling…" until the run ends, then its outcome and the new source', async (t) => {
    await page.getByRole('button', { name: 'Run site/hours now' }).click();
    await status('Crawling site/hours…').waitFor();
    t.ok(await page.getByRole('button', { name: 'Run site/hours now' }).isDisabled(), 'not twice at once');
    await world.screenshot(page, 'knowledge-crawling');
    await status(/Crawled site\/hours: a new version of \d+ passages\./).waitFor();
    await crawlRow('site/hours').getByText('OK', { exact: true }).waitFor();
    t.notMatch(await crawlRow('site/hours').textContent(), /never/, 'attempted');

    await tabs.getByRole('tab', { name: 'Sources' }).click();
    const source = page.getByRole('table', { name: 'site', exact: true }).getByRole('row').filter({ hasText: 'site/hours' });
    await source.waitFor();
    t.match(await source.textContent(), /Library Hours.*site\/hours.*library.*crawl/);
  });

  await t.test('a page answering 500 is the crawl\'s error, on Crawls and Sources; force after the fix', async (t) => {
    site.set('/hours', { status: 500, body: 'down' });
    await tabs.getByRole('tab', { name: 'Crawls' }).click();
    await page.getByRole('button', { name: 'Run site/hours now' }).click();
    const message = `${new URL(site.origin).host} answered 500 for /hours`;
    await status(`Crawl of site/hours failed: ${message}`).waitFor();
    await crawlRow('site/hours').getByText(message).waitFor();
    await world.screenshot(page, 'knowledge-crawl-failed');

    await tabs.getByRole('tab', { name: 'Sources' }).click();
    const source = page.getByRole('row').filter({ hasText: 'site/hours' });
    await source.getByText(`Last crawl failed: ${message}`).waitFor();
    t.match(await source.textContent(), /Library Hours/, 'the source keeps its passages');
    await world.screenshot(page, 'knowledge-source-crawl-error');

    site.set('/hours', { body: article('Library Hours', 'library') });
    await tabs.getByRole('tab', { name: 'Crawls' }).click();
    await page.getByRole('button', { name: 'Run site/hours with force' }).click();
    await status('Crawled site/hours: unchanged, nothing written.').waitFor();
    await crawlRow('site/hours').getByText('OK', { exact: true }).waitFor();
    t.pass();
  });

  await t.test('Run now while a crawl of the key runs: already running', async (t) => {
    const started = await quad.api.inject({ method: 'POST', url: '/api/knowledge/crawls/run', headers: bearer(token), payload: { key: 'slow/page' } });
    t.equal(started.statusCode, 202);
    await held.asked();
    await page.getByRole('button', { name: 'Run slow/page now' }).click();
    await status('A crawl of slow/page is already running').waitFor();
    held.release();
    t.equal((await quad.waitForRun(started.json().run_id)).status, 'succeeded');
  });

  await t.test('uploads: the caps checked before sending, then a result per file', async (t) => {
    await tabs.getByRole('tab', { name: 'Upload' }).click();
    const form = page.getByRole('form', { name: 'Upload documents' });
    const files = form.getByLabel('Files');
    const text = (name: string, body: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });
    await files.setInputFiles(Array.from({ length: 21 }, (_, i) => text(`n${i}.txt`, 'x')));
    await page.getByRole('alert').filter({ hasText: 'At most 20 files in one upload; 21 are chosen.' }).waitFor();
    await form.getByRole('button', { name: 'Upload' }).click();
    t.equal((await sql("select count(*)::int as n from knowledge_runs where kind = 'upload'"))[0].n, 0, 'nothing sent');

    const notes = text('Notes.txt', 'The club meets on Tuesdays in room 204.\n\nBring a laptop.');
    await files.setInputFiles([notes, { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }]);
    await form.getByLabel('Category').fill('club');
    await form.getByRole('button', { name: 'Upload' }).click();
    await status('Uploaded 2 files: 1 stored, 0 unchanged, 1 failed.').waitFor();
    const results = page.getByRole('table', { name: 'Upload results' });
    t.match(await results.getByRole('row').filter({ hasText: 'Notes.txt' }).textContent(), /upload\/notes\.txt.*\d+.*new version/);
    t.match(await results.getByRole('row').filter({ hasText: 'photo.png' }).textContent(), /upload\/photo\.png.*failed.*Files of type "\.png" cannot be read/);
    await world.screenshot(page, 'knowledge-upload');

    await files.setInputFiles([notes]);
    await form.getByRole('button', { name: 'Upload' }).click();
    await status('Uploaded 1 file: 0 stored, 1 unchanged, 0 failed.').waitFor();
    t.match(await results.getByRole('row').filter({ hasText: 'Notes.txt' }).textContent(), /unchanged/);

    await tabs.getByRole('tab', { name: 'Sources' }).click();
    const source = page.getByRole('table', { name: 'upload', exact: true }).getByRole('row').filter({ hasText: 'upload/notes.txt' });
    t.match(await source.textContent(), /Notes\.txt.*club.*upload/);
  });

  const runsTable = page.getByRole('table', { name: 'Knowledge runs' });
  const dataRows = runsTable.locator('tbody tr');

  await t.test('the run log: 50 rows, Show more, Failed only', async (t) => {
    await tabs.getByRole('tab', { name: 'Runs' }).click();
    await runsTable.waitFor();
    t.equal(await dataRows.count(), 50);
    t.match(await dataRows.first().textContent(), /upload\/notes\.txt.*Upload.*No.*0/, 'newest first: the unchanged upload');
    t.match(await dataRows.filter({ hasText: 'site/hours' }).allTextContents(), [/Crawl.*No/, /Crawl.*No.*answered 500 for \/hours/, /Crawl.*Yes/]);
    await world.screenshot(page, 'knowledge-runs');
    await page.getByRole('button', { name: 'Show more' }).click();
    // 60 older rows, 3 crawls of site/hours, 1 of slow/page, 3 uploaded files.
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 67);
    t.equal(await page.getByRole('button', { name: 'Show more' }).count(), 0, 'all shown');

    await page.getByRole('checkbox', { name: 'Failed only' }).check();
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 2);
    t.match(await dataRows.allTextContents(), [/upload\/photo\.png.*Upload.*cannot be read/, /site\/hours.*Crawl.*answered 500/]);
  });

  await t.test('Activity → Knowledge runs', async (t) => {
    await page.goto('/dashboard/activity?tab=knowledge-runs');
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    const tab = page.getByRole('tab', { name: 'Knowledge runs' });
    await runsTable.waitFor();
    t.equal(await tab.getAttribute('aria-selected'), 'true');
    t.equal(await dataRows.count(), 50);
    t.match(await dataRows.first().textContent(), /upload\/notes\.txt/);
    await world.screenshot(page, 'activity-knowledge-runs');
  });

  await t.test('Re-crawl all asks first; a second one while it runs is refused', async (t) => {
    held.hold();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Knowledge' }).click();
    await tabs.getByRole('tab', { name: 'Crawls' }).click();
    const reindex = page.getByRole('button', { name: 'Re-crawl all (reindex)' });
    const dialog = page.getByRole('dialog', { name: 'Re-crawl every URL?' });
    await reindex.click();
    await dialog.getByRole('button', { name: 'Re-crawl all' }).click();
    const started = status(/Re-crawl started \(job run #\d+\)/);
    await started.waitFor();
    const runId = Number(/#(\d+)/.exec((await started.textContent())!)![1]);
    // The job reached slow/page (after site/hours) and waits for it: a second start is 409.
    await held.asked();
    await reindex.click();
    await dialog.getByRole('button', { name: 'Re-crawl all' }).click();
    await status('A re-crawl is already running.').waitFor();
    held.release();
    t.equal((await quad.waitForRun(runId)).status, 'succeeded');
  });

  await t.test('Delete stops crawling after a dialog; the source stays', async (t) => {
    await page.getByRole('button', { name: 'Delete crawl slow/page' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop crawling slow/page?' });
    await dialog.getByRole('button', { name: 'Stop crawling' }).click();
    await crawlRow('slow/page').waitFor({ state: 'detached' });
    t.equal(await crawlRow('site/hours').count(), 1, 'the other crawl stays');
    await tabs.getByRole('tab', { name: 'Sources' }).click();
    await page.getByRole('table', { name: 'slow', exact: true }).getByRole('row').filter({ hasText: 'slow/page' }).waitFor();
  });

  t.same(world.problems(page), []);
});
