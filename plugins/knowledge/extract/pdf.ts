// Text of an uploaded PDF with pdf.js (its legacy build, the one that runs in Node): page by page, lines where pdf.js
// marks an end of line, pages apart by a blank line; the title from the document information. In Node pdf.js runs
// in this thread (its "fake worker"), and here it evaluates no code from the file, loads no fonts and fetches
// nothing from the network: the CMaps (needed for the text of CJK fonts) and standard font data are read from the
// package's own folders. A file with pages but no text is most likely a scan, and the officer is told so. It runs in
// a reader thread (pool.ts), whose deadline and memory caps bound what a file's streams inflate to; here the pages
// are capped, and the text is read as pdf.js streams it and stops once it passes `maxChars`.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, VerbosityLevel, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextContent } from 'pdfjs-dist/types/src/display/api.js';
import { ExtractFailed, tooLong } from './failed.js';

/** More pages than any document a knowledge base is made of; a longer one is refused before a page is read. */
export const MAX_PDF_PAGES = 2000;

const PACKAGE = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
// pdf.js wants these as folder "URLs" ending in a slash; in Node it reads them from the file system.
const CMAPS = `${join(PACKAGE, 'cmaps')}/`;
const STANDARD_FONTS = `${join(PACKAGE, 'standard_fonts')}/`;

/** Its own thread's side of pdf.js (it has no worker of its own in Node): see loadPdfJs. */
const PDFJS_WORKER = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

/**
 * Loads pdf.js's worker side ahead of the first document: its fake worker would import it during the first read (half
 * a second), on that document's deadline. globalThis.pdfjsWorker is where pdf.js looks for it first.
 */
export async function loadPdfJs(): Promise<void> {
  const global = globalThis as { pdfjsWorker?: unknown };
  global.pdfjsWorker ??= await import(PDFJS_WORKER);
}

const NO_TEXT = 'The PDF has no text layer (a scanned document?): export it with text, or run OCR first';

/** The PDF's title and text; an ExtractFailed when it cannot be read, has too many pages or too much text. */
export async function pdfText(bytes: Uint8Array, maxChars = Infinity): Promise<{ title: string; text: string }> {
  const task = getDocument({
    // A copy: pdf.js transfers (detaches) the buffer it is given, and it refuses a Node Buffer.
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    cMapUrl: CMAPS,
    cMapPacked: true,
    standardFontDataUrl: STANDARD_FONTS,
    // Damaged files make pdf.js warn on the console at length; the officer gets one message instead.
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    if (doc.numPages > MAX_PDF_PAGES) {
      throw new ExtractFailed(`The PDF has ${doc.numPages} pages; up to ${MAX_PDF_PAGES} are read: split it`);
    }
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await pageText(doc, n, maxChars - chars);
      if (page === null) throw tooLong(maxChars);
      if (page === '') continue;
      chars += page.length + (pages.length > 0 ? 2 : 0);
      if (chars > maxChars) throw tooLong(maxChars);
      pages.push(page);
    }
    const text = pages.join('\n\n');
    if (doc.numPages > 0 && text === '') throw new ExtractFailed(NO_TEXT);
    return { title: await titleOf(doc), text };
  } catch (err) {
    throw err instanceof ExtractFailed ? err : unreadable(err);
  } finally {
    await task.destroy();
  }
}

/**
 * A page's text: items in pdf.js's order, a line break where it marks one, spaces collapsed, lines trimmed. pdf.js
 * streams a page's text in parts, so a page too long for the `room` left stops there: null once the raw text passes
 * twice the room (only a page more than half made of runs of spaces could still have fitted).
 */
async function pageText(doc: PDFDocumentProxy, n: number, room: number): Promise<string | null> {
  const page = await doc.getPage(n);
  try {
    const parts = page.streamTextContent().getReader();
    let raw = '';
    for (let part = await parts.read(); !part.done; part = await parts.read()) {
      for (const item of (part.value as TextContent).items) if ('str' in item) raw += item.hasEOL ? `${item.str}\n` : item.str;
      if (raw.length > 2 * room) {
        await parts.cancel();
        return null;
      }
    }
    return raw.replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  } finally {
    page.cleanup();
  }
}

/** The information dictionary's Title, whitespace collapsed; '' when unset or unreadable. */
async function titleOf(doc: PDFDocumentProxy): Promise<string> {
  try {
    const { info } = await doc.getMetadata();
    const title = (info as { Title?: unknown } | null)?.Title;
    return typeof title === 'string' ? title.replace(/\s+/g, ' ').trim() : '';
  } catch {
    return '';
  }
}

/** pdf.js's error as a reason an officer can act on; the original stays as the cause, for the logs. */
function unreadable(err: unknown): ExtractFailed {
  const name = (err as Error | null)?.name;
  const reason = name === 'PasswordException' ? 'it is password-protected; upload a copy without a password'
    : name === 'InvalidPDFException' ? 'it is damaged or not a PDF'
      : 'it is damaged or uses features this reader does not support';
  return new ExtractFailed(`The PDF cannot be read: ${reason}`, { cause: err });
}
