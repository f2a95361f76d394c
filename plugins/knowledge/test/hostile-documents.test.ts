// Hostile documents through a running Quad (issue 38): an officer's upload of the reproductions (unclosed tags, a
// spaced Markdown heading, a .docx that unpacks to 40 MB, a PDF that takes long, a PDF whose font inflates past the
// memory cap) beside a good file, and crawls of hostile pages, while /health is asked over real HTTP: every answer
// comes promptly, each hostile file fails (or reads) on its own with its message, the good file is stored.
// tap: a process of its own (it sets the reader threads' limits for the process, and burns CPU to their deadlines).
import t, { type Test } from 'tap';
import { allowOutside, bearer, startFakeSite } from '@quad/core/testing';
import { configureReaders } from '../extract/index.js';
import { startKnowledgeWorld } from './world.js';
import { docxBomb, fontBombPdf, inflatingContentPdf, spacedHeading, unclosedTags } from './fixtures/hostile.js';

allowOutside(t);

const w = await startKnowledgeWorld(t, { role: 'all', listen: true, config: { KNOWLEDGE_CHUNK_CHARS: 200, LIMIT_KNOWLEDGE_JOBS_PER_DAY: 100 } });
const { quad } = w;
const site = await startFakeSite(t);
// Each file meets the limit it is made for with the other limit out of its way: a short deadline with a memory cap far
// above what reading the slow PDF takes (over 128 MB on Node 24), and a small memory cap with a deadline far above
// the time the font bomb takes to pass it on a loaded machine. The production limits are in pool.ts.
const DEADLINE_CASE = { deadlineMs: 2000, memoryMb: 1024 };
const MEMORY_CASE = { deadlineMs: 60_000, memoryMb: 128 };

/** Runs `attack` while asking GET /health one request after another (50 ms apart); how long each answer took. */
async function healthDuring<T>(attack: () => Promise<T>): Promise<{ result: T; answers: number[] }> {
  const answers: number[] = [];
  let done = false;
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${quad.url}/health`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
      answers.push(performance.now() - started);
      // A pace, not a wait: the attack is what the loop runs beside.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { result: await attack(), answers };
  } finally {
    done = true;
    await polling;
  }
}

function promptly(t: Test, answers: number[]) {
  t.ok(answers.length >= 5, `/health asked ${answers.length} times during the attack`);
  const slowest = Math.max(...answers);
  t.ok(slowest < 1000, `every /health answered within 1 s (slowest ${Math.round(slowest)} ms)`);
}

type Part = [name: string, bytes: Uint8Array | string];

async function upload(files: Part[]) {
  const form = new FormData();
  for (const [name, bytes] of files) form.append('files', new Blob([bytes as BlobPart]), name);
  const request = new Request('http://quad.test/', { method: 'POST', body: form });
  return fetch(`${quad.url}/api/dashboard/${w.org.prefix}/knowledge/documents`, {
    method: 'POST', headers: { ...bearer(w.officerToken), 'content-type': request.headers.get('content-type')! },
    body: Buffer.from(await request.arrayBuffer()),
  });
}

const filesByName = async (res: Response) =>
  Object.fromEntries(((await res.json()) as { files: Array<{ name: string }> }).files.map((f) => [f.name, f]));

t.test('an upload of hostile files beside a good one: /health answers throughout, each file on its own', async (t) => {
  await configureReaders(DEADLINE_CASE);
  const files: Part[] = [
    ['tags.html', `<title>Tags</title><p>Text before the tags.</p>${unclosedTags(2_500)}`],
    ['heading.md', `${spacedHeading(40_000)}\n\nText under the heading.`],
    ['bomb.docx', await docxBomb(40 * 1024 * 1024)],
    ['slow.pdf', await inflatingContentPdf(20 * 1024 * 1024, '(x) Tj T* ')],
    ['notes.txt', 'Good notes about the lounge key and the Tuesday meeting.'],
  ];
  const { result: res, answers } = await healthDuring(() => upload(files));
  t.equal(res.status, 200);
  const byName = await filesByName(res);
  t.match(byName['tags.html'], { key: 'upload/tags.html', changed: true, error: null });
  t.match(byName['heading.md'], { key: 'upload/heading.md', changed: true, error: null });
  t.match(byName['bomb.docx'], { changed: false, error: /^The \.docx file cannot be read: its part "word\/document\.xml" unpacks to \d+ MB, more than the 20 MB a part may$/ });
  t.match(byName['slow.pdf'], { changed: false, error: 'The file took too long to read (more than 2 s)' });
  t.match(byName['notes.txt'], { key: 'upload/notes.txt', changed: true, error: null, passages: 1 });
  promptly(t, answers);
  t.equal((await w.get('/api/knowledge/sources/upload/heading.md')).json().title, 'a', 'the heading read from the start of its line');
  t.equal((await w.get('/api/knowledge/sources/upload/bomb.docx')).statusCode, 404, 'a failed file leaves no source');
});

t.test('an upload of a PDF that inflates past the memory cap beside a good file', async (t) => {
  await configureReaders(MEMORY_CASE);
  const files: Part[] = [
    ['font.pdf', await fontBombPdf(512 * 1024 * 1024)],
    ['more-notes.txt', 'More notes: the projector remote is in the second drawer.'],
  ];
  const { result: res, answers } = await healthDuring(() => upload(files));
  t.equal(res.status, 200);
  const byName = await filesByName(res);
  t.match(byName['font.pdf'], { changed: false, error: 'The file needs more memory than a document may use' });
  t.match(byName['more-notes.txt'], { key: 'upload/more-notes.txt', changed: true, error: null, passages: 1 });
  promptly(t, answers);
});

t.test('crawls of hostile pages fail those crawls with their message; /health answers throughout', async (t) => {
  site.set('/tags', { body: `<title>Tags</title>${unclosedTags(25_000)}` });
  site.set('/slow.pdf', { body: Buffer.from(await inflatingContentPdf(20 * 1024 * 1024, '(x) Tj T* ')), type: 'application/pdf' });
  site.set('/font.pdf', { body: Buffer.from(await fontBombPdf(512 * 1024 * 1024)), type: 'application/pdf' });
  const expected: Record<string, string | RegExp> = {
    'hostile/tags': /^The page has no text/,
    'hostile/slow': 'The page took too long to read (more than 2 s)',
    'hostile/font': 'The page needs more memory than a document may use',
  };
  const limits: Record<string, typeof DEADLINE_CASE> = { 'hostile/tags': DEADLINE_CASE, 'hostile/slow': DEADLINE_CASE, 'hostile/font': MEMORY_CASE };
  const { answers } = await healthDuring(async () => {
    for (const [key, path] of [['hostile/tags', '/tags'], ['hostile/slow', '/slow.pdf'], ['hostile/font', '/font.pdf']]) {
      await configureReaders(limits[key]);
      const put = await quad.api.inject({ method: 'PUT', url: `/api/knowledge/crawls/${key}`, headers: bearer(w.acmToken), payload: { url: `${site.origin}${path}` } });
      t.equal(put.statusCode, 201, put.body);
      const run = await quad.api.inject({ method: 'POST', url: '/api/knowledge/crawls/run', headers: bearer(w.acmToken), payload: { key } });
      t.equal(run.statusCode, 202, run.body);
      t.equal((await quad.waitForRun(run.json().run_id)).status, 'succeeded', 'the job itself is fine');
      const [row] = await w.sql<{ error: string | null }>('select error from knowledge_runs where source_key = ? order by id desc limit 1', [key]);
      t.match(row.error, expected[key], key);
    }
  });
  promptly(t, answers);
});
