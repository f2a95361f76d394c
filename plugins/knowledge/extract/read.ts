// The readers by file type, run inside a reader thread (worker.ts): UTF-8 text read strictly, Markdown's title, HTML,
// PDF and .docx by their readers (html.ts, pdf.ts, docx.ts), line endings made \n, NUL dropped, and the text cap
// (`maxChars`, MAX_CHUNKS passages of chunk_chars) applied, the readers stopping early where they can. Every failure
// an officer can act on is an ExtractFailed. The readers load their libraries (cheerio, pdf.js, mammoth) when a
// thread first needs them (prepare), so a thread that reads only text never loads them.
import { ExtractFailed, tooLong } from './failed.js';

export interface Extracted {
  /** The document's own title, '' when it names none (the caller falls back to the file name). */
  title: string;
  /** Plain text, \n line endings, trimmed; never empty for a file (a page's may be: the crawl says why). */
  text: string;
}

/** What a reader thread is asked to read. */
export type ReadRequest =
  /** An uploaded file (or a crawled page that is not HTML) by its lower-case extension, already checked. */
  | { kind: 'file'; ext: string; bytes: Uint8Array; maxChars: number }
  /** A crawled HTML page, decoded with its charset; its text may be empty. */
  | { kind: 'html'; html: string; maxChars: number };

/**
 * Loads the reader a request needs (once a thread): before its deadline starts, so the first document of a thread
 * is not timed on loading cheerio or pdf.js.
 */
export async function prepare(request: ReadRequest): Promise<void> {
  const ext = request.kind === 'html' ? '.html' : request.ext;
  if (ext === '.html' || ext === '.htm') await import('./html.js');
  else if (ext === '.pdf') await (await import('./pdf.js')).loadPdfJs();
  else if (ext === '.docx') await import('./docx.js');
}

export async function readRequest(request: ReadRequest): Promise<Extracted> {
  const { maxChars } = request;
  if (request.kind === 'html') {
    const { title, text } = (await import('./html.js')).htmlText(request.html, maxChars);
    return { title, text };
  }
  const { title, text } = await read(request.ext, request.bytes, maxChars);
  // PostgreSQL text cannot hold NUL characters, and they carry no meaning in a passage.
  const clean = normaliseLines(text).replaceAll('\0', '').trim();
  if (!clean) throw new ExtractFailed('The file has no text');
  if (clean.length > maxChars) throw tooLong(maxChars);
  return { title: title.replace(/\s+/g, ' ').trim(), text: clean };
}

async function read(ext: string, bytes: Uint8Array, maxChars: number): Promise<Extracted> {
  switch (ext) {
    case '.md':
    case '.markdown': {
      const text = utf8(bytes);
      return { title: markdownTitle(text), text };
    }
    case '.html':
    case '.htm':
      return (await import('./html.js')).htmlText(utf8(bytes), maxChars);
    case '.pdf':
      return (await import('./pdf.js')).pdfText(bytes, maxChars);
    case '.docx':
      return (await import('./docx.js')).docxText(bytes);
    default:
      return { title: '', text: utf8(bytes) };
  }
}

// fatal: bytes that are not UTF-8 fail rather than turn into U+FFFD; a leading BOM is dropped (ignoreBOM: false).
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Uint8Array): string {
  try {
    return normaliseLines(UTF8.decode(bytes));
  } catch {
    throw new ExtractFailed('The file is not UTF-8 text');
  }
}

const normaliseLines = (text: string) => text.replace(/\r\n?/g, '\n');

/** A title is one line: a longer heading line is read up to here (a hostile line costs nothing more). */
const MAX_TITLE_LINE = 1000;

/** The first level-one ATX heading (`# Title`) outside code fences, '' when there is none. */
export function markdownTitle(text: string): string {
  let fenced = false;
  for (const line of text.split('\n', 10_000)) {
    if (/^ {0,3}(?:```|~~~)/.test(line)) fenced = !fenced;
    const title = fenced ? '' : headingText(line.slice(0, MAX_TITLE_LINE));
    if (title) return title;
  }
  return '';
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * The text of a level-one ATX heading line (`# Title ##`: up to 3 spaces, one `#`, a space or tab, the text, an
 * optional closing run of `#` after a space or tab), trimmed; '' when the line is none or has no text. String
 * operations, not a regular expression: the lazy text before an optional closing sequence was quadratic in the
 * line's length.
 */
function headingText(line: string): string {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  if (line[i] !== '#' || !isBlank(line[i + 1])) return '';
  let end = line.length;
  while (end > i + 1 && isBlank(line[end - 1])) end--;
  let hashes = end;
  while (hashes > i + 1 && line[hashes - 1] === '#') hashes--;
  // A closing run counts only after a space or tab; `# C#` keeps its `#`.
  if (hashes < end && isBlank(line[hashes - 1])) end = hashes;
  return line.slice(i + 1, end).trim();
}
