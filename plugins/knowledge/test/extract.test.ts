// Text extraction and passage splitting, pure functions without a database: HTML (chrome dropped, main content,
// blocks as lines, titles, deep nesting), PDF and .docx files written by the fixtures (text, no text layer, broken,
// password-protected), plain text (BOM, not UTF-8, empty, unknown types), and the passage contracts (length, title
// line, exact overlap, boundaries, hard cuts, termination, speed on a megabyte).
import t, { type Test } from 'tap';
import { ExtractFailed, extensionOf, extractDocument as extractWith, SUPPORTED_EXTENSIONS } from '../extract/index.js';
import { htmlText } from '../extract/html.js';
import { capNesting, MAX_NESTING } from '../extract/nesting.js';
import { pdfText } from '../extract/pdf.js';
import { docxText } from '../extract/docx.js';
import { splitPassages } from '../extract/passages.js';
import { buildPdf, shapeContent, textContent } from './fixtures/pdf.js';
import { buildDocx } from './fixtures/docx.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
/** extractDocument with the largest text cap the settings allow (5000 passages of 4000 characters). */
const extractDocument = (name: string, bytes: Uint8Array) => extractWith(name, bytes, { maxChars: 5000 * 4000 });

async function failure(t: Test, p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    t.type(err, ExtractFailed);
    t.equal((err as Error).name, 'ExtractFailed');
    return (err as Error).message;
  }
  t.fail('expected ExtractFailed');
  return '';
}

t.test('HTML: page chrome, code and hidden parts dropped, <main> taken, blocks on their own lines', async (t) => {
  const page = `<!doctype html><html><head><title>  Opening
    hours &amp; fees </title><style>p { color: red }</style><script>var x = "<p>no</p>";</script></head>
    <body><header><h1>Site name</h1><nav><a href="/">Home</a></nav></header>
    <p>Outside main</p>
    <main><h1>Opening hours</h1><p>The office is open <b>Monday</b>&nbsp;to&nbsp;Friday.</p><div>Closed on</div><div>public holidays.</div>
    <ul><li>Mon 9&ndash;17</li><li>Fri 9&ndash;12</li></ul>
    <form><label>Search</label><input value="q"><button>Go</button></form>
    <table><tr><th>Day</th><th>Hours</th></tr><tr><td>Mon</td><td>9-17</td></tr></table>
    <p hidden>secret</p><div aria-hidden="true">icon</div><svg><title>svg title</title><text>svg text</text></svg>
    <noscript>enable js</noscript><template><p>tpl</p></template><iframe>frame</iframe><aside>related</aside>
    <div role="navigation">menu</div><select><option>one</option></select><textarea>typed</textarea>
    <p>Line one<br>Line two<br><br>After blank</p>
    <pre>
  code
    indented</pre>
    </main><footer>Copyright</footer></body></html>`;
  t.same(htmlText(page), {
    title: 'Opening hours & fees',
    text: 'Opening hours\n\nThe office is open Monday to Friday.\n\nClosed on\npublic holidays.\n\nMon 9–17\nFri 9–12\n\n'
      + 'Day | Hours\nMon | 9-17\n\nLine one\nLine two\n\nAfter blank\n\n  code\n    indented',
  });
});

t.test('HTML: words of separate blocks never glue, inline text does; entities decoded', async (t) => {
  t.same(htmlText('<div>alpha</div><div>beta</div><p>gamma</p>delta<span>epsilon</span><h2>zeta</h2><li>eta</li>'), {
    title: '', text: 'alpha\nbeta\n\ngamma\n\ndeltaepsilon\n\nzeta\n\neta',
  });
  t.equal(htmlText('<p>&lt;b&gt; &amp; &quot;q&quot; &#x1F600; &eacute;&#233; caf&#xE9;</p>').text, '<b> & "q" 😀 éé café');
  t.equal(htmlText('<p>  many   spaces\n\tand\ttabs  </p>\n\n\n<p>next</p>').text, 'many spaces and tabs\n\nnext');
  t.equal(htmlText('<dl><dt>Term</dt><dd>Definition</dd></dl><blockquote>Quote</blockquote>').text, 'Term\nDefinition\n\nQuote');
  t.equal(htmlText('').text, '');
});

t.test('HTML: the title falls back to og:title, then the first <h1>, never an SVG title', async (t) => {
  t.equal(htmlText('<meta property="og:title" content=" Graph   title "><h1>Heading</h1>').title, 'Graph title');
  t.equal(htmlText('<body><svg><title>Icon</title></svg><header><h1>Real <i>one</i></h1></header><p>x</p>').title, 'Real one',
    'from a header that the text drops');
  t.equal(htmlText('<title> </title><h1>Heading</h1>').title, 'Heading', 'an empty <title> does not count');
  t.equal(htmlText('<p>No title at all</p>').title, '');
});

t.test('HTML: <main>, else [role=main], else every outermost <article>, else the body', async (t) => {
  t.equal(htmlText('<p>chrome</p><div role="main">Main &lt;b&gt;</div>').text, 'Main <b>');
  t.equal(htmlText('<p>chrome</p><article>One</article><div><article>Two<article>Inner</article></article></div>').text,
    'One\n\nTwo\n\nInner');
  t.equal(htmlText('<article>Article</article><main>Main</main>').text, 'Main', '<main> wins over <article>');
  t.equal(htmlText('<main hidden>Hidden main</main><p>Body text</p>').text, 'Body text', 'a hidden <main> is no content');
});

t.test('HTML: deep nesting is capped, so a hostile page stays fast', async (t) => {
  const deep = `<title>Deep</title>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}`;
  const started = performance.now();
  t.same(htmlText(deep), { title: 'Deep', text: 'deep text' });
  t.ok(performance.now() - started < 3000, `parsed in ${Math.round(performance.now() - started)} ms`);
  t.equal(htmlText(`${'<span><div></span>'.repeat(50_000)}x`).text, 'x', 'end tags the parser ignores do not fool the cap');

  const capped = capNesting(`${'<div>'.repeat(600)}x${'</div>'.repeat(600)}`);
  t.equal(capped.match(/<div>/g)?.length, MAX_NESTING);
  t.equal(capped.match(/<\/div>/g)?.length, MAX_NESTING, 'the end tags of dropped elements go too');
  const normal = `<ul>${'<li>item <b>bold</b> <p>para<br/>'.repeat(2000)}</ul><script>"${'<div>'.repeat(600)}"</script>`;
  t.equal(capNesting(normal), normal, 'implied end tags and script text do not count as depth');
});

t.test('PDF: text per page, lines from pdf.js, the info Title; the caller\'s bytes untouched', async (t) => {
  const bytes = buildPdf({
    title: ' Student  union handbook ',
    pages: [textContent(['Opening hours', 'Monday to Friday (9-17)']), shapeContent(), textContent(['Closed on holidays \\ weekends', 'spaced    out'])],
  });
  const copy = bytes.slice();
  const expected = { title: 'Student union handbook', text: 'Opening hours\nMonday to Friday (9-17)\n\nClosed on holidays \\ weekends\nspaced out' };
  t.same(await pdfText(bytes), expected, 'a page without text adds no blank lines');
  t.same(bytes, copy, 'pdf.js detaches the buffer it gets: it got a copy');
  t.same(await pdfText(Buffer.from(bytes)), expected, 'a Node Buffer is fine');
  t.same(await extractDocument('Handbook.PDF', bytes), expected);
  t.same(await pdfText(buildPdf({ pages: [textContent(['Untitled'])] })), { title: '', text: 'Untitled' });
});

t.test('PDF: CJK text through the packaged CMaps, without network', async (t) => {
  const font = '<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [<< /Type /Font '
    + '/Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> '
    + '/FontDescriptor << /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900] /ItalicAngle 0 '
    + '/Ascent 880 /Descent -120 /CapHeight 880 /StemV 80 >> >>] >>';
  t.same(await pdfText(buildPdf({ pages: ['BT /F1 12 Tf 72 720 Td <4F60597D> Tj ET'], font })), { title: '', text: '你好' });
});

t.test('PDF: no text layer, broken, password-protected', async (t) => {
  t.equal(await failure(t, pdfText(buildPdf({ title: 'Scan', pages: [shapeContent(), shapeContent()] }))),
    'The PDF has no text layer (a scanned document?): export it with text, or run OCR first');
  const good = buildPdf({ pages: [textContent(['x'])] });
  for (const broken of [utf8('not a pdf'), utf8('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), good.slice(0, good.length / 2)]) {
    t.equal(await failure(t, pdfText(broken)), 'The PDF cannot be read: it is damaged or not a PDF');
  }
  t.equal(await failure(t, extractDocument('locked.pdf', buildPdf({ pages: [textContent(['x'])], locked: true }))),
    'The PDF cannot be read: it is password-protected; upload a copy without a password');
  t.equal(await failure(t, extractDocument('none.pdf', buildPdf({ pages: [] }))), 'The file has no text', 'no pages at all');
});

t.test('.docx: paragraphs apart by a blank line, no title; broken files', async (t) => {
  const bytes = await buildDocx(['First paragraph & more', 'Second <one>']);
  t.same(await docxText(bytes), { title: '', text: 'First paragraph & more\n\nSecond <one>' });
  t.same(await extractDocument('Notes.DOCX', bytes), { title: '', text: 'First paragraph & more\n\nSecond <one>' });
  t.equal(await failure(t, extractDocument('blank.docx', await buildDocx(['', ' ']))), 'The file has no text');

  const notZip = 'The .docx file cannot be read: it is damaged or not a .docx file (an old .doc must be saved as .docx first)';
  t.equal(await failure(t, docxText(utf8('this is not a zip'))), notZip);
  t.equal(await failure(t, docxText(bytes.slice(0, 100))), notZip, 'a truncated zip');
  t.equal(await failure(t, docxText(await buildDocx(['a'], { 'word/document.xml': null }))),
    'The .docx file cannot be read: it has no document part (is it really a .docx?)');
  t.equal(await failure(t, docxText(await buildDocx(['a'], { 'word/document.xml': '<w:document><oops' }))),
    'The .docx file cannot be read: its document XML is broken');
});

t.test('plain text: UTF-8 strictly, BOM dropped, line endings \\n, Markdown title', async (t) => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('Hello\r\nworld\rand\u0000 more\n\n')]);
  t.same(await extractDocument('notes.txt', bom), { title: '', text: 'Hello\nworld\nand more' }, 'NUL characters go too');
  t.same(await extractDocument('data.csv', utf8('a,b\r\n1,2\r\n')), { title: '', text: 'a,b\n1,2' });
  t.same(await extractDocument('guide.md', utf8('```sh\n# not a title\n```\n\n#  Welcome,  officers  ##\r\n\n## Sub\ntext')), {
    title: 'Welcome, officers', text: '```sh\n# not a title\n```\n\n#  Welcome,  officers  ##\n\n## Sub\ntext',
  });
  t.equal((await extractDocument('notes.markdown', utf8('## Only a subheading\n#hashtag'))).title, '');
  t.same(await extractDocument('page.htm', utf8('<title>Page</title><p>Body</p>')), { title: 'Page', text: 'Body' });

  t.equal(await failure(t, extractDocument('latin1.txt', new Uint8Array([0x48, 0xe9, 0x6c, 0x6c, 0x6f]))), 'The file is not UTF-8 text');
  t.equal(await failure(t, extractDocument('latin1.html', new Uint8Array([0x3c, 0x70, 0x3e, 0xe9]))), 'The file is not UTF-8 text');
  t.equal(await failure(t, extractDocument('empty.txt', new Uint8Array())), 'The file has no text');
  t.equal(await failure(t, extractDocument('blank.md', utf8(' \r\n\t\n'))), 'The file has no text');
  t.equal(await failure(t, extractDocument('chrome.html', utf8('<nav>Home</nav><script>x()</script>'))), 'The file has no text');
});

t.test('file types by extension', async (t) => {
  t.same(SUPPORTED_EXTENSIONS, ['.txt', '.md', '.markdown', '.csv', '.html', '.htm', '.pdf', '.docx']);
  t.same(['a.PDF', 'dir.v2/report.final.docx', 'C:\\docs\\x.Md', 'README', '.env', 'archive.tar.gz', ' spaced.txt '].map(extensionOf),
    ['.pdf', '.docx', '.md', '', '', '.gz', '.txt']);
  const supported = 'upload one of .txt, .md, .markdown, .csv, .html, .htm, .pdf, .docx';
  t.equal(await failure(t, extractDocument('slides.pptx', utf8('x'))), `Files of type ".pptx" cannot be read: ${supported}`);
  t.equal(await failure(t, extractDocument('README', utf8('x'))), `Files without an extension cannot be read: ${supported}`);
  const err = new ExtractFailed('x');
  t.ok(err instanceof Error);
  t.equal(err.name, 'ExtractFailed');
});

const words = (n: number) => Array(n).fill('word').join(' ');

t.test('passages: the strongest boundary in the second half of the window', async (t) => {
  const options = { chunkChars: 100, overlap: 0 };
  const first = `${'word '.repeat(11)}end.`; // 59 characters: a boundary inside the window's second half
  const next = `Next sentence. ${words(30)}`;
  t.equal(splitPassages(`${first}\n\n${next}`, options)[0], first, 'a paragraph break before a later sentence end');
  t.equal(splitPassages(`${first}\n${next}`, options)[0], first, 'a line break before a later sentence end');
  t.equal(splitPassages(`${first} ${next}`, options)[0], `${first} Next sentence.`, 'the latest sentence end');
  t.same(splitPassages(words(40), options), [words(20), words(20)], 'the latest space');
  t.same(splitPassages(`Title line\n\n${words(40)}`, options), [`Title line\n\n${words(17)}`, words(20), words(3)],
    'a paragraph break in the first half would make a short passage: not taken');
  t.same(splitPassages(`  ${words(3)}\n\n  `, options), [words(3)], 'trimmed');
  t.same(splitPassages(' \n\t ', options), []);
  t.same(splitPassages('', options), []);
});

t.test('passages: long words are cut hard, never inside a surrogate pair', async (t) => {
  t.same(splitPassages('x'.repeat(250), { chunkChars: 100, overlap: 0 }), ['x'.repeat(100), 'x'.repeat(100), 'x'.repeat(50)]);
  t.same(splitPassages(`aaa ${'x'.repeat(200)}`, { chunkChars: 100, overlap: 0 }), [`aaa ${'x'.repeat(96)}`, 'x'.repeat(100), 'xxxx'],
    'a space in the first half is no boundary');
  t.same(splitPassages('x'.repeat(250), { chunkChars: 100, overlap: 10 }), ['x'.repeat(100), 'x'.repeat(100), 'x'.repeat(70)]);
  t.same(splitPassages('😀'.repeat(80), { chunkChars: 101, overlap: 0 }), ['😀'.repeat(50), '😀'.repeat(30)]);
});

t.test('passages: the title line, and the overlap copied verbatim', async (t) => {
  t.same(splitPassages('  Hello world.  ', { chunkChars: 100, overlap: 20, title: ' Opening \n hours ' }), ['Opening hours\nHello world.']);
  t.same(splitPassages('Hello', { chunkChars: 100, overlap: 0, title: '  ' }), ['Hello'], 'a blank title is no title');
  // 20 words are 99 characters; the overlap is the last 20 of them, then the space of the cut, then new text.
  t.same(splitPassages(words(40), { chunkChars: 100, overlap: 20, title: 'T' }), [
    `T\n${words(20)}`,
    `T\n ${words(4)} ${words(16)}`,
    `T\n ${words(4)} ${words(4)}`,
  ]);
  const options = { chunkChars: 100, overlap: 50 };
  const many = splitPassages('x'.repeat(20_000), options);
  t.equal(many.length, 399, 'the largest overlap still moves on: 100, then 50 new characters each');
  t.ok(many.every((p) => p === 'x'.repeat(100)));
});

/** A deterministic text of words, sentences, lines, paragraphs and a few very long words. */
function sampleText(length: number, seed = 1): string {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const r = random();
    const wordLength = r < 0.03 ? 150 + Math.floor(random() * 300) : 1 + Math.floor(random() * 11);
    const word = 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)].repeat(wordLength);
    const s = random();
    const sep = s < 0.08 ? '. ' : s < 0.13 ? '\n' : s < 0.18 ? '\n\n' : ' ';
    parts.push(word, sep);
    size += word.length + sep.length;
  }
  return parts.join('').trim();
}

t.test('passages: contracts on generated text', async (t) => {
  const text = sampleText(60_000);
  const title = 'Handbook';
  for (const [chunkChars, overlap] of [[100, 0], [100, 50], [137, 13], [500, 100], [1000, 0], [4000, 2000]]) {
    const passages = splitPassages(text, { chunkChars, overlap, title });
    const bodies = passages.map((p) => p.slice(title.length + 1));
    const label = `${chunkChars}/${overlap}`;
    t.ok(passages.every((p) => p.startsWith(`${title}\n`)), `${label}: a title line on each`);
    t.ok(bodies.every((b) => b.length <= chunkChars && b.trim() !== ''), `${label}: bodies fit and are never blank`);
    t.ok(bodies.every((b) => b === b.trimEnd()), `${label}: no body ends in whitespace`);
    const minNew = Math.floor((chunkChars - overlap - 2) / 2);
    t.ok(passages.length <= Math.ceil(text.length / minNew) + 1, `${label}: each passage adds at least half a window`);
    if (overlap === 0) {
      t.ok(bodies.every((b) => b === b.trim()), `${label}: trimmed at each cut`);
      t.equal(bodies.join('').replace(/\s/g, ''), text.replace(/\s/g, ''), `${label}: the bodies are the text`);
    } else {
      const exact = bodies.slice(1).every((b, i) => bodies[i].endsWith(b.slice(0, overlap)) && b.length > overlap);
      t.ok(exact, `${label}: each body starts with the previous one's last ${overlap} characters, then more`);
      t.equal(bodies[0] + bodies.slice(1).map((b) => b.slice(overlap)).join(''), text, `${label}: stripping the overlaps gives the text back`);
    }
  }
});

t.test('passages: a megabyte well under a second; options checked', async (t) => {
  const text = sampleText(1_000_000, 7);
  for (const [chunkChars, overlap] of [[100, 50], [1000, 200], [4000, 0]]) {
    const started = performance.now();
    const passages = splitPassages(text, { chunkChars, overlap });
    const ms = performance.now() - started;
    t.ok(ms < 1000, `${chunkChars}/${overlap}: ${passages.length} passages in ${Math.round(ms)} ms`);
  }
  t.throws(() => splitPassages('x', { chunkChars: 9, overlap: 0 }), RangeError);
  t.throws(() => splitPassages('x', { chunkChars: 100.5, overlap: 0 }), RangeError);
  t.throws(() => splitPassages('x', { chunkChars: 100, overlap: 51 }), RangeError);
  t.throws(() => splitPassages('x', { chunkChars: 100, overlap: -1 }), RangeError);
});
