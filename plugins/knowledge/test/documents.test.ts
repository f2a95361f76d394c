// Uploads (POST /api/dashboard/<org>/knowledge/documents) as a browser sends them, multipart/form-data over the
// real route: every file type, broken files beside good ones, the unchanged-file rule, the fields, each cap
// (files, size each, size together) with its status, the day's upload limit, and the run log.
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { startKnowledgeWorld } from './world.js';
import { buildPdf, shapeContent, textContent } from './fixtures/pdf.js';
import { buildDocx } from './fixtures/docx.js';

const w = await startKnowledgeWorld(t, { config: { KNOWLEDGE_CHUNK_CHARS: 200, LIMIT_KNOWLEDGE_UPLOADS_PER_DAY: 25 } });
const { quad } = w;
const url = `/api/dashboard/${w.org.prefix}/knowledge/documents`;

type Part = [name: string, bytes: Uint8Array | string];

/** A multipart body as a browser's FormData makes it. */
async function upload(files: Part[], fields: Record<string, string> = {}, token = w.officerToken) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [name, bytes] of files) form.append('files', new Blob([bytes as BlobPart]), name);
  const request = new Request('http://quad.test/', { method: 'POST', body: form });
  return quad.api.inject({
    method: 'POST', url, headers: { ...bearer(token), 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

const paragraphs = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `The ${topic} rule number ${i} explains dues, meetings and the lounge key.`);
const html = `<html><head><title>Club Handbook</title></head><body><nav>Menu Home About</nav><main><p>${paragraphs('handbook', 6).join('</p><p>')}</p></main><footer>Footer</footer></body></html>`;
const good: Part[] = [
  ['Notes.txt', paragraphs('notes', 5).join('\n\n')],
  ['Guide.md', `# Member Guide\n\n${paragraphs('guide', 5).join('\n\n')}`],
  ['roster.csv', 'name,role\nAda,president\nGrace,treasurer\n'],
  ['handbook.html', html],
  ['Minutes.pdf', buildPdf({ title: 'Meeting Minutes', pages: [textContent(paragraphs('minutes', 4)), textContent(['Second page about the budget vote.'])] })],
  ['Policy.docx', await buildDocx(paragraphs('policy', 4))],
];

t.test('every file type becomes a source of its own', async (t) => {
  const res = await upload(good);
  t.equal(res.statusCode, 200, res.body);
  const files = res.json().files;
  t.same(files.map((f: { key: string }) => f.key), ['upload/notes.txt', 'upload/guide.md', 'upload/roster.csv', 'upload/handbook.html', 'upload/minutes.pdf', 'upload/policy.docx']);
  for (const f of files) {
    t.equal(f.error, null, f.name);
    t.equal(f.changed, true);
    t.ok(f.passages >= 1);
  }
  const source = async (key: string) => (await w.get(`/api/knowledge/sources/${key}`)).json();
  const md = await source('upload/guide.md');
  t.match(md, { origin: 'upload', category: 'documents', public: false, title: 'Member Guide' });
  t.ok(md.chunks.every((c: { content: string }) => c.content.startsWith('Member Guide\n')), 'the title on each passage');
  t.equal((await source('upload/minutes.pdf')).title, 'Meeting Minutes', 'a PDF\'s own title');
  t.equal((await source('upload/notes.txt')).title, 'Notes.txt', 'no title: the file name');
  t.match((await source('upload/minutes.pdf')).chunks.map((c: { content: string }) => c.content).join(' '), /budget vote/);
  t.notMatch((await source('upload/handbook.html')).chunks.map((c: { content: string }) => c.content).join(' '), /Menu Home|Footer/);
  t.match((await source('upload/roster.csv')).chunks[0].content, /Grace,treasurer/);
  const found = await w.search({ query: 'policy rule lounge key' });
  t.ok(found.json().results.some((r: { source_key: string }) => r.source_key === 'upload/policy.docx'), 'search finds an uploaded passage');
  const runs = await w.sql<{ n: number }>("select count(*)::int as n from knowledge_runs where kind = 'upload' and changed and error is null");
  t.equal(runs[0].n, 6, 'each file in the run log');
});

t.test('the same file at the same passage size writes nothing; a new passage size does', async (t) => {
  const before = await w.sql<{ key: string; version: string }>("select key, current_version_id as version from knowledge_sources where key like 'upload/%' order by key");
  const again = await upload(good);
  t.ok(again.json().files.every((f: { changed: boolean; error: null; passages: number }) => !f.changed && f.error === null && f.passages > 0), 'unchanged, with their passages');
  t.same(await w.sql("select key, current_version_id as version from knowledge_sources where key like 'upload/%' order by key"), before, 'no new version');
  t.equal((await w.asOfficer('PUT', `/api/dashboard/${w.org.prefix}/knowledge/settings`, { chunk_chars: 120 })).statusCode, 200);
  const resized = await upload([good[0]]);
  t.match(resized.json().files, [{ key: 'upload/notes.txt', changed: true, error: null }]);
  const chunks = (await w.get('/api/knowledge/sources/upload/notes.txt')).json().chunks;
  t.ok(chunks.every((c: { content: string }) => c.content.length - 'Notes.txt\n'.length <= 120), 'passages of the new size');
  await w.asOfficer('PUT', `/api/dashboard/${w.org.prefix}/knowledge/settings`, { chunk_chars: null });
});

t.test('a failing file is reported and the others go on', async (t) => {
  const res = await upload([
    ['scan.pdf', buildPdf({ pages: [shapeContent()] })],
    ['broken.pdf', 'this is not a pdf'],
    ['broken.docx', 'not a zip either'],
    ['slides.pptx', 'x'],
    ['empty.txt', ''],
    ['latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9])],
    ['fine.txt', 'A fine file about the spring picnic.'],
  ]);
  t.equal(res.statusCode, 200);
  const byName = Object.fromEntries(res.json().files.map((f: { name: string }) => [f.name, f]));
  t.match(byName['scan.pdf'].error, /no text layer \(a scanned document\?\)/);
  t.match(byName['broken.pdf'].error, /The PDF cannot be read/);
  t.match(byName['broken.docx'].error, /The \.docx file cannot be read/);
  t.match(byName['slides.pptx'].error, /"\.pptx" cannot be read: upload one of \.txt/);
  t.match(byName['empty.txt'].error, /no text/);
  t.match(byName['latin1.txt'].error, /not UTF-8/);
  t.match(byName['fine.txt'], { key: 'upload/fine.txt', changed: true, error: null, passages: 1 });
  t.equal((await w.get('/api/knowledge/sources/upload/scan.pdf')).statusCode, 404, 'a failed file leaves no source');
  const failed = await w.sql<{ n: number }>("select count(*)::int as n from knowledge_runs where kind = 'upload' and error is not null");
  t.equal(failed[0].n, 6);
});

t.test('fields: folder, category and public; keys from names', async (t) => {
  const res = await upload([['Rules & Bylaws 2026.TXT', 'Bylaws text about elections.']], { folder: '/Handbook/Rules/', category: 'handbook' });
  t.match(res.json().files, [{ key: 'handbook/rules/rules-bylaws-2026.txt', error: null }]);
  t.match((await w.get('/api/knowledge/sources/handbook/rules/rules-bylaws-2026.txt')).json(), { category: 'handbook', public: false });
  const pub = await upload([['a.txt', 'text']], { public: 'true' });
  t.equal(pub.statusCode, 403, 'public sources only from publishers');
  t.match(pub.json(), { reason: 'not_publisher' });
  for (const [fields, reason] of [[{ folder: '../etc' }, 'bad_folder'], [{ folder: 'a b' }, 'bad_folder'], [{ public: 'maybe' }, 'bad_public']] as const) {
    const bad = await upload([['a.txt', 'text']], fields);
    t.equal(bad.statusCode, 400, JSON.stringify(fields));
    t.match(bad.json(), { reason });
  }
});

t.test('caps: files, size each, size together, no files, not multipart', async (t) => {
  const many = await upload(Array.from({ length: 21 }, (_, i): Part => [`f${i}.txt`, 'text']));
  t.equal(many.statusCode, 413);
  t.match(many.json(), { reason: 'too_many_files', error: /At most 20 files/ });
  const big = await upload([['big.txt', Buffer.alloc(10 * 1024 * 1024 + 1, 'a')]]);
  t.equal(big.statusCode, 413);
  t.match(big.json(), { reason: 'file_too_large', error: /larger than 10 MB/ });
  const nine = Buffer.alloc(9 * 1024 * 1024, 'b');
  const together = await upload([['a.txt', nine], ['b.txt', nine], ['c.txt', nine]]);
  t.equal(together.statusCode, 413);
  t.match(together.json(), { reason: 'upload_too_large', error: /more than 25 MB together/ });
  t.equal((await w.get('/api/knowledge/sources/upload/a.txt')).statusCode, 404, 'a refused upload writes nothing');
  const none = await upload([], { folder: 'x' });
  t.equal(none.statusCode, 400);
  t.match(none.json(), { reason: 'no_files' });
  const json = await quad.api.inject({ method: 'POST', url, headers: bearer(w.officerToken), payload: { files: [] } });
  t.equal(json.statusCode, 415);
  t.match(json.json(), { reason: 'not_multipart' });
  t.equal((await upload([['a.txt', 'x']], {}, w.acmToken)).statusCode, 401, 'a machine token is not an officer');
});

t.test('the day\'s upload limit: the files over it fail, each with the reason', async (t) => {
  // Every file of the earlier uploads counted (refused requests counted none): 21 of the day's 25.
  const used = (await w.sql<{ n: number }>("select count(*)::int as n from knowledge_runs where kind = 'upload'"))[0].n;
  t.equal(used, 21);
  const res = await upload(Array.from({ length: 6 }, (_, i): Part => [`limit${i}.txt`, `file ${i} about the limit`]));
  t.equal(res.statusCode, 200);
  const files = res.json().files;
  t.same(files.map((f: { error: string | null }) => f.error === null), [true, true, true, true, false, false], 'four more, then none');
  t.match(files[4].error, /knowledge\.uploads_per_day/);
  t.equal((await w.get('/api/knowledge/sources/upload/limit4.txt')).statusCode, 404);
});
