// The readers against hostile documents (issue 38), without a database: inputs made to backtrack (unclosed tags, a
// spaced Markdown heading) finish in milliseconds; a .docx that unpacks to 40 MB, or more than its zip says, and PDFs
// made to inflate fail their file with a message the officer can read; and each limit of the reader threads
// (deadline, heap, memory, text, pages, the bounded wait) fails the one document while the next one reads, and a
// process that read is not kept alive by the threads.
// tap: a process of its own (its top-level afterEach sets the reader threads' limits for the process).
import { spawn } from 'node:child_process';
import t, { type Test } from 'tap';
import { configureReaders, extractDocument, ExtractFailed, READER_LIMITS } from '../extract/index.js';
import { htmlText } from '../extract/html.js';
import { capNesting, MAX_NESTING } from '../extract/nesting.js';
import { buildPdf, shapeContent, textContent } from './fixtures/pdf.js';
import { buildDocx } from './fixtures/docx.js';
import { docxBomb, fontBombPdf, inflatingContentPdf, spacedHeading, unclosedTags, understated } from './fixtures/hostile.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
/** The cap of a source of the largest passages (5000 of 4000 characters). */
const MAX_CHARS = 5000 * 4000;
const read = (name: string, bytes: Uint8Array | string, maxChars = MAX_CHARS) =>
  extractDocument(name, typeof bytes === 'string' ? utf8(bytes) : bytes, { maxChars });

async function failure(t: Test, p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    t.type(err, ExtractFailed, (err as Error).message);
    return (err as Error).message;
  }
  t.fail('expected ExtractFailed');
  return '';
}

async function timed<T>(run: () => T | Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await run();
  return [value, performance.now() - started];
}

/** Each limit's test sets its own; the defaults are back between tests. */
t.afterEach(() => configureReaders(READER_LIMITS));

t.test('HTML: unclosed tags (issue 38: 5 KB held the process 15 s) are scanned in linear time', async (t) => {
  for (const count of [2_500, 25_000, 50_000]) {
    // No '>' after them: the old pattern looked for one from every '<', over every split of name and attributes.
    const page = `<title>Tags</title><p>Before the tags.</p>${unclosedTags(count)}`;
    const [, capMs] = await timed(() => capNesting(page));
    const [text, textMs] = await timed(() => htmlText(page));
    t.ok(capMs < 1000 && textMs < 1000, `${page.length} characters: nesting cap in ${Math.round(capMs)} ms, text in ${Math.round(textMs)} ms`);
    t.same(text, { title: 'Tags', text: 'Before the tags.' });
  }
  // Quotes left open, quotes around '<' and '>', unclosed end tags: linear too, and a tag still counts where it starts.
  for (const [label, unit] of [['open quotes', '<a "'], ['open single quotes', "<a b='"], ['quoted <', '<div title="<">'],
    ['quoted >', '<div title=">">'], ['end tags', '</a'], ['comments', '<!--<a']] as const) {
    const [, ms] = await timed(() => htmlText(unit.repeat(Math.ceil(100_000 / unit.length))));
    t.ok(ms < 1000, `${label}, 100 KB: ${Math.round(ms)} ms`);
  }
  const quoted = capNesting(`${'<div title="<">'.repeat(600)}x`);
  t.equal(quoted.match(/<div/g)?.length, MAX_NESTING, 'a "<" in a quoted value does not hide its tag from the cap');
  const gt = capNesting(`${'<div title="a>b">'.repeat(600)}x${'</div>'.repeat(600)}`);
  t.equal(gt.match(/<div/g)?.length, MAX_NESTING, 'a ">" in a quoted value does not end the tag early');
});

t.test('Markdown: a heading line of spaces (issue 38: 40 KB held the process 2.6 s) is read in milliseconds', async (t) => {
  await read('warm.txt', 'the reader threads start here, so the timings below are the readers\'');
  for (const spaces of [40_000, 1_000_000]) {
    const [doc, ms] = await timed(() => read('line.md', spacedHeading(spaces)));
    t.ok(ms < 1000, `${spaces} spaces: ${Math.round(ms)} ms`);
    t.equal(doc.title, 'a', 'the title is read from the start of the line');
  }
  t.equal((await read('closed.md', '#   Title ##   \n')).title, 'Title', 'the closing sequence still goes');
  t.equal((await read('hash.md', '# C#\n')).title, 'C#', 'a # inside the title stays');
  t.equal((await read('empty.md', '#    ##\n# \tReal\n')).title, 'Real', 'an empty heading is no title');
});

t.test('.docx: a part that unpacks past 20 MB, past 100 to 1, or past its stated size is refused', async (t) => {
  const bomb = await docxBomb(40 * 1024 * 1024);
  t.ok(bomb.length < 200_000, `a ${Math.round(bomb.length / 1024)} KB file`);
  t.match(await failure(t, read('bomb.docx', bomb)),
    /^The \.docx file cannot be read: its part "word\/document\.xml" unpacks to 4\d MB, more than the 20 MB a part may$/);
  t.equal(await failure(t, read('dense.docx', await docxBomb(5 * 1024 * 1024))),
    'The .docx file cannot be read: its part "word/document.xml" is compressed more than 100 to 1 (a zip bomb?)');
  t.equal(await failure(t, read('lying.docx', understated(bomb, 1000))),
    'The .docx file cannot be read: a part unpacks to more than its zip directory states (a zip bomb?)');
  const deflated = await buildDocx(['A deflated paragraph', 'and another'], {}, 'DEFLATE');
  t.same(await read('word.docx', deflated), { title: '', text: 'A deflated paragraph\n\nand another' }, 'a real one still reads');
});

t.test('PDF: a content stream inflating to 20 MB stops at the deadline; the next document reads', async (t) => {
  await configureReaders({ deadlineMs: 1000 });
  const pdf = await inflatingContentPdf(20 * 1024 * 1024, '(x) Tj T* ');
  t.ok(pdf.length < 100_000, `a ${Math.round(pdf.length / 1024)} KB file`);
  const [message, ms] = await timed(() => failure(t, read('slow.pdf', pdf)));
  t.equal(message, 'The file took too long to read (more than 1 s)');
  t.ok(ms < 8000, `stopped after ${Math.round(ms)} ms (reading it takes longer)`);
  t.same(await read('next.pdf', buildPdf({ pages: [textContent(['Next one'])] })), { title: '', text: 'Next one' });
  const page = await failure(t, extractDocument('slow.pdf', pdf, { maxChars: MAX_CHARS, subject: 'page' }));
  t.equal(page, 'The page took too long to read (more than 1 s)', 'a crawled page is a page');
});

t.test('PDF: a font program inflating far past the memory cap fails its file', async (t) => {
  // The inflated font lives in buffers outside the thread's heap: the memory watchdog ends it.
  await configureReaders({ memoryMb: 128 });
  const pdf = await fontBombPdf(512 * 1024 * 1024);
  t.ok(pdf.length < 1_000_000, `a ${Math.round(pdf.length / 1024)} KB file`);
  t.equal(await failure(t, read('font.pdf', pdf)), 'The file needs more memory than a document may use');
  t.same(await read('next.txt', 'still reading'), { title: '', text: 'still reading' });
});

t.test('heap: a document that needs more than the thread\'s heap fails alone', async (t) => {
  await configureReaders({ heapMb: 32 });
  const html = `<main>${'<p><b>word</b> <i>word</i></p>'.repeat(100_000)}</main>`;
  t.equal(await failure(t, read('big.html', html)), 'The file needs more memory than a document may use');
  t.same(await read('small.html', '<p>small</p>'), { title: '', text: 'small' }, 'a new thread reads the next one');
});

t.test('text: each reader stops once the text passes the cap (MAX_CHUNKS passages of chunk_chars)', async (t) => {
  const tooLong = 'The text is longer than a source holds (more than 1,000 characters): split it, or raise chunk_chars in the knowledge settings';
  const words = 'word '.repeat(300);
  t.equal(await failure(t, read('long.txt', words, 1000)), tooLong);
  t.equal(await failure(t, read('long.md', `# T\n${words}`, 1000)), tooLong);
  t.equal(await failure(t, read('long.html', `<p>${words}</p>`, 1000)), tooLong);
  // pdf.js drops text past the page's edge: lines of 79 characters.
  const lines = Array(5).fill(words.slice(0, 79));
  t.equal(await failure(t, read('long.pdf', buildPdf({ pages: Array(5).fill(textContent(lines)) }), 1000)), tooLong);
  t.equal(await failure(t, read('long.docx', await buildDocx([words]), 1000)), tooLong);
  t.equal((await read('fits.txt', words, 1500)).text, words.trim(), 'a text within the cap reads');
});

t.test('PDF: more pages than MAX_PDF_PAGES are refused before a page is read', async (t) => {
  t.equal(await failure(t, read('pages.pdf', buildPdf({ pages: Array(2001).fill(shapeContent()) }))),
    'The PDF has 2001 pages; up to 2000 are read: split it');
});

t.test('the wait is bounded: past it a document fails at once, the ones waiting are read', async (t) => {
  await configureReaders({ threads: 1, maxWaiting: 1, deadlineMs: 1000 });
  const slow = read('slow.pdf', await inflatingContentPdf(20 * 1024 * 1024, '(x) Tj T* '));
  const waiting = read('waiting.txt', 'waited for the thread');
  t.equal(await failure(t, read('third.txt', 'one too many')), 'Too many documents are being read right now: try again in a few minutes');
  t.match(await failure(t, slow), /took too long/);
  t.same(await waiting, { title: '', text: 'waited for the thread' });
});

t.test('an idle reader thread keeps no process alive', async (t) => {
  // A process that reads one document and does nothing else ends by itself (its thread is unreferenced when idle).
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const code = `const { extractDocument } = await import(${JSON.stringify(new URL(`../extract/index.${ext}`, import.meta.url).href)});
    const { text } = await extractDocument('a.txt', new TextEncoder().encode('read in a thread'), { maxChars: 100 });
    console.log(text);`;
  const child = spawn(process.execPath, [...process.execArgv, '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b; });
  const code0 = await new Promise((resolve) => child.on('exit', resolve));
  t.equal(code0, 0);
  t.equal(out.trim(), 'read in a thread');
});
