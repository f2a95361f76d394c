// The reader strips the overlap a source's version was cut with, not the org's chunk_overlap of today (issue 42):
// crawled, uploaded and module-written sources indexed with one overlap and read after the setting changed without
// re-indexing (40 → 0, 0 → 40, 20 → 40), a client's own chunks read as written, and a version that does not know its
// overlap (written before versions kept it) read with the org's setting. Text of numbered words, each once, so a
// repeated or a lost character at a passage boundary shows. Last, what migration 0008 tells of versions written before.
import t, { type Test } from 'tap';
import { readFile } from 'node:fs/promises';
import { allowOutside, bearer, startFakeSite } from '@quad/core/testing';
import { startKnowledgeWorld } from './world.js';
import { orgSourcesFor } from '../org-sources.js';

allowOutside(t);

const w = await startKnowledgeWorld(t, { role: 'all', config: { LIMIT_KNOWLEDGE_JOBS_PER_DAY: 100 } });
const { quad } = w;
const site = await startFakeSite(t);
const prefix = w.org.prefix;

/** `n` words w0000 … each once, in sentences, so the splitter cuts at many kinds of boundary. */
const numbered = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${tag}${String(i).padStart(4, '0')}${i % 9 === 8 ? '.' : ''}`).join(' ');

const settings = async (body: Record<string, unknown>) => {
  const res = await w.asOfficer('PUT', `/api/dashboard/${prefix}/knowledge/settings`, body);
  if (res.statusCode !== 200) throw new Error(`settings: ${res.statusCode} ${res.body}`);
};

/** The whole page text of a source as the reader gives it (every page), and the passages read. */
async function readAll(key: string): Promise<{ text: string; passages: number }> {
  const texts: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const res = await w.asOfficer('GET', `/api/dashboard/${prefix}/knowledge/sources/${key}?offset=${offset}`);
    if (res.statusCode !== 200) throw new Error(`read: ${res.statusCode} ${res.body}`);
    const page = res.json() as { passages: { text: string }[]; next_offset: number | null };
    texts.push(...page.passages.map((p) => p.text));
    offset = page.next_offset;
  }
  return { text: texts.join(''), passages: texts.length };
}

/** Each numbered word of `tag` once, in order: nothing repeated at a boundary and nothing lost. */
function wordsOnce(t: Test, text: string, tag: string, n: number, label: string) {
  const found = text.match(new RegExp(`${tag}\\d{4}`, 'g')) ?? [];
  const expected = Array.from({ length: n }, (_, i) => `${tag}${String(i).padStart(4, '0')}`);
  t.equal(found.length, n, `${label}: ${n} words, none repeated or lost (got ${found.length})`);
  t.same(found, expected, `${label}: in order`);
}

const versionOverlap = async (key: string) => (await w.sql<{ o: number | null }>(
  'select v.chunk_overlap as o from knowledge_sources s join knowledge_versions v on v.id = s.current_version_id where s.organization_id = ? and s.key = ?',
  [w.org.id, key]))[0]?.o;

async function upload(name: string, text: string) {
  const form = new FormData();
  form.append('files', new Blob([text]), name);
  const request = new Request('http://quad.test/', { method: 'POST', body: form });
  const res = await quad.api.inject({
    method: 'POST', url: `/api/dashboard/${prefix}/knowledge/documents`,
    headers: { ...bearer(w.officerToken), 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
  const [file] = res.json().files as { key: string; error: string | null; passages: number }[];
  if (file.error) throw new Error(`upload: ${file.error}`);
  return file;
}

async function crawl(key: string, path: string, text: string) {
  site.set(path, { body: `<!doctype html><html><head><title>Page ${key}</title></head><body><main><p>${text}</p></main></body></html>` });
  const put = await quad.api.inject({ method: 'PUT', url: `/api/knowledge/crawls/${key}`, headers: bearer(w.acmToken), payload: { url: `${site.origin}${path}` } });
  if (put.statusCode !== 201 && put.statusCode !== 200) throw new Error(`crawl record: ${put.statusCode} ${put.body}`);
  const res = await quad.api.inject({ method: 'POST', url: '/api/knowledge/crawls/run', headers: bearer(w.acmToken), payload: { key, force: true } });
  const run = await quad.waitForRun(res.json().run_id);
  if (run.status !== 'succeeded') throw new Error(`crawl job ${run.status}: ${run.error}`);
}

t.test('uploaded with overlap 40, read after the setting went back to 0', async (t) => {
  await settings({ chunk_chars: 200, chunk_overlap: 40 });
  const file = await upload('forty.txt', numbered('f', 400));
  t.ok(file.passages > 10, `${file.passages} passages`);
  t.equal(await versionOverlap(file.key), 40, 'the version keeps the overlap it was cut with');
  wordsOnce(t, (await readAll(file.key)).text, 'f', 400, 'read with the setting unchanged');
  await settings({ chunk_overlap: 0 });
  wordsOnce(t, (await readAll(file.key)).text, 'f', 400, 'read after the setting went to 0, not re-indexed');
});

t.test('the reverse: uploaded with 0 (and with 20), read after the setting went to 40', async (t) => {
  await settings({ chunk_chars: 200, chunk_overlap: 0 });
  const none = await upload('none.txt', numbered('n', 400));
  await settings({ chunk_overlap: 20 });
  const twenty = await upload('twenty.txt', numbered('t', 400));
  t.same([await versionOverlap(none.key), await versionOverlap(twenty.key)], [0, 20]);
  await settings({ chunk_overlap: 40 });
  wordsOnce(t, (await readAll(none.key)).text, 'n', 400, 'built with 0, read with the setting at 40');
  wordsOnce(t, (await readAll(twenty.key)).text, 't', 400, 'built with 20, read with the setting at 40');
});

t.test('a crawled page keeps its overlap too', async (t) => {
  await settings({ chunk_chars: 200, chunk_overlap: 40 });
  await crawl('site/forty', '/forty', numbered('c', 300));
  t.equal(await versionOverlap('site/forty'), 40);
  await settings({ chunk_overlap: 0 });
  wordsOnce(t, (await readAll('site/forty')).text, 'c', 300, 'crawled with 40, read with the setting at 0');
  await crawl('site/none', '/none', numbered('d', 300));
  t.equal(await versionOverlap('site/none'), 0);
  await settings({ chunk_overlap: 40 });
  wordsOnce(t, (await readAll('site/none')).text, 'd', 300, 'crawled with 0, read with the setting at 40');
});

t.test('text a module writes (knowledge.org_sources) keeps the overlap it was split with', async (t) => {
  await settings({ chunk_chars: 200, chunk_overlap: 40 });
  await orgSourcesFor(quad.services).writeText(quad.emFor(w.org.id), w.org.id, { key: 'module/answer', title: 'Answer', url: '', category: '', text: numbered('m', 300) });
  t.equal(await versionOverlap('module/answer'), 40);
  await settings({ chunk_overlap: 0 });
  wordsOnce(t, (await readAll('module/answer')).text, 'm', 300, 'written with 40, read with the setting at 0');
});

t.test('a client\'s own chunks are read as written; an unknown overlap falls back to the org\'s setting', async (t) => {
  await settings({ chunk_chars: 200, chunk_overlap: 3 });
  // The second chunk happens to start with the first one's last 3 characters: the client's text, kept.
  const put = await w.put('client/own', { chunks: [{ ordinal: 0, content: 'one two' }, { ordinal: 1, content: 'two three' }] });
  t.equal(put.statusCode, 201);
  t.equal(await versionOverlap('client/own'), 0, 'a client\'s chunks repeat nothing of ours');
  t.equal((await readAll('client/own')).text, 'one twotwo three', 'nothing stripped');

  await w.sql("update knowledge_versions v set chunk_overlap = null from knowledge_sources s where s.id = v.source_id and s.key = 'client/own'");
  t.equal((await readAll('client/own')).text, 'one two three', 'a version of unknown overlap: the org\'s setting now, as before versions kept it');
});

t.test('the tool knowledge.read_source strips the same overlap', async (t) => {
  await settings({ chunk_overlap: 0 });
  const res = await quad.api.inject({
    method: 'POST', url: '/api/tools/call', headers: bearer(w.readerToken),
    payload: { name: 'knowledge.read_source', arguments: { key: 'upload/forty.txt' } },
  });
  t.equal(res.statusCode, 200, res.body);
  const read = res.json().result as { text: string; next_offset: number | null };
  t.equal(read.next_offset, null, 'one page');
  wordsOnce(t, read.text, 'f', 400, 'through the tool');
});

t.test('migration 0008: what versions written before it tell of their overlap', async (t) => {
  const keys = ['upload/forty.txt', 'upload/twenty.txt', 'client/own', 'module/answer', 'site/forty'];
  await w.sql('update knowledge_versions v set chunk_overlap = null from knowledge_sources s where s.id = v.source_id and s.key in (?)', [keys]);
  await w.sql(await readFile(new URL('../migrations/0008_knowledge_version_overlap.sql', import.meta.url), 'utf8'));
  const after = await Promise.all(keys.map(versionOverlap));
  t.same(after, [40, 20, 0, null, null], 'an upload\'s from its hash, a client\'s chunks 0; module text and crawls unknown (their digest hides it)');
  await settings({ chunk_overlap: 0 });
  wordsOnce(t, (await readAll('upload/forty.txt')).text, 'f', 400, 'the backfilled upload read with the setting at 0');
});
