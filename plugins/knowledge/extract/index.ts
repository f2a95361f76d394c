// Text out of a document an officer uploads, for the knowledge module: the file type by its extension, UTF-8 text
// read strictly, HTML, PDF and .docx by their readers (html.ts, pdf.ts, docx.ts), line endings made \n. Every
// failure is an ExtractFailed whose message the officer sees as it is. The readers load their libraries (cheerio,
// pdf.js, mammoth: half a second together) on first use, so importing this file costs the server's start nothing.

/** Why a document gave no text; the message is safe to show an officer (no stack, no path, no library detail). */
export class ExtractFailed extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExtractFailed';
  }
}

/** The file types extractDocument reads, by lower-case extension. */
export const SUPPORTED_EXTENSIONS: readonly string[] = Object.freeze(['.txt', '.md', '.markdown', '.csv', '.html', '.htm', '.pdf', '.docx']);

export interface Extracted {
  /** The document's own title, '' when it names none (the caller falls back to the file name). */
  title: string;
  /** Plain text, \n line endings, trimmed; never empty. */
  text: string;
}

/** The lower-case extension of a file name with its dot (`.pdf`), '' when it has none (`README`, `.env`). */
export function extensionOf(fileName: string): string {
  const name = fileName.trim();
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** The title and text of an uploaded file, or an ExtractFailed saying why there is none. */
export async function extractDocument(fileName: string, bytes: Uint8Array): Promise<Extracted> {
  const ext = extensionOf(fileName);
  if (!SUPPORTED_EXTENSIONS.includes(ext)) {
    const what = ext ? `Files of type "${ext}"` : 'Files without an extension';
    throw new ExtractFailed(`${what} cannot be read: upload one of ${SUPPORTED_EXTENSIONS.join(', ')}`);
  }
  if (bytes.length === 0) throw new ExtractFailed('The file has no text');
  const { title, text } = await read(ext, bytes);
  // PostgreSQL text cannot hold NUL characters, and they carry no meaning in a passage.
  const clean = normaliseLines(text).replaceAll('\0', '').trim();
  if (!clean) throw new ExtractFailed('The file has no text');
  return { title: title.replace(/\s+/g, ' ').trim(), text: clean };
}

async function read(ext: string, bytes: Uint8Array): Promise<Extracted> {
  switch (ext) {
    case '.md':
    case '.markdown': {
      const text = utf8(bytes);
      return { title: markdownTitle(text), text };
    }
    case '.html':
    case '.htm':
      return (await import('./html.js')).htmlText(utf8(bytes));
    case '.pdf':
      return (await import('./pdf.js')).pdfText(bytes);
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

/** The first level-one ATX heading (`# Title`) outside code fences, '' when there is none. */
function markdownTitle(text: string): string {
  let fenced = false;
  for (const line of text.split('\n', 10_000)) {
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading?.[1].trim()) return heading[1].trim();
  }
  return '';
}
