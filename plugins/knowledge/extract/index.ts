// Text out of a document an officer uploads or a page a crawl fetched, for the knowledge module: the file type by
// its extension, checked here, then read in a reader thread (pool.ts runs read.ts in worker.ts) under a deadline, a
// memory cap and a cap on the text, so a hostile file fails alone and the request and job threads never wait on a
// parser. Every failure an officer can act on is an ExtractFailed whose message they see as it is. Importing this
// file loads no reader and starts no thread: the pool starts on the first read.
import { ExtractFailed } from './failed.js';
import { readInThread, type Subject } from './pool.js';
import type { Extracted } from './read.js';

export { ExtractFailed } from './failed.js';
export type { Extracted } from './read.js';
export { READER_LIMITS, configureReaders, closeReaders, type ReaderLimits } from './pool.js';

/** The file types extractDocument reads, by lower-case extension. */
export const SUPPORTED_EXTENSIONS: readonly string[] = Object.freeze(['.txt', '.md', '.markdown', '.csv', '.html', '.htm', '.pdf', '.docx']);

export interface ExtractOptions {
  /** The longest text a source may hold: MAX_CHUNKS passages of chunk_chars. A longer text fails the file. */
  maxChars: number;
  /** What the officer is told failed: an uploaded `file` or a crawled `page`. Default: `file`. */
  subject?: Subject;
}

/** The lower-case extension of a file name with its dot (`.pdf`), '' when it has none (`README`, `.env`). */
export function extensionOf(fileName: string): string {
  const name = fileName.trim();
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** The title and text of an uploaded file, or an ExtractFailed saying why there is none. */
export async function extractDocument(fileName: string, bytes: Uint8Array, options: ExtractOptions): Promise<Extracted> {
  const ext = extensionOf(fileName);
  if (!SUPPORTED_EXTENSIONS.includes(ext)) {
    const what = ext ? `Files of type "${ext}"` : 'Files without an extension';
    throw new ExtractFailed(`${what} cannot be read: upload one of ${SUPPORTED_EXTENSIONS.join(', ')}`);
  }
  if (bytes.length === 0) throw new ExtractFailed('The file has no text');
  // A copy the thread takes over (transferred, not copied again); the caller's bytes stay as they are.
  const copy = new Uint8Array(bytes);
  return readInThread({ kind: 'file', ext, bytes: copy, maxChars: options.maxChars }, [copy.buffer], options.subject ?? 'file');
}

/** The title and main text of a crawled HTML page (html.ts); the text may be empty (the crawl says why). */
export async function extractHtml(html: string, options: { maxChars: number }): Promise<Extracted> {
  return readInThread({ kind: 'html', html, maxChars: options.maxChars }, [], 'page');
}
