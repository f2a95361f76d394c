// Text of an uploaded PDF with pdf.js (its legacy build, the one that runs in Node): page by page, lines where pdf.js
// marks an end of line, pages apart by a blank line; the title from the document information. In Node pdf.js runs
// in this thread (its "fake worker"), and here it evaluates no code from the file, loads no fonts and fetches
// nothing from the network: the CMaps (needed for the text of CJK fonts) and standard font data are read from the
// package's own folders. A file with pages but no text is most likely a scan, and the officer is told so.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, VerbosityLevel, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ExtractFailed } from './index.js';

const PACKAGE = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
// pdf.js wants these as folder "URLs" ending in a slash; in Node it reads them from the file system.
const CMAPS = `${join(PACKAGE, 'cmaps')}/`;
const STANDARD_FONTS = `${join(PACKAGE, 'standard_fonts')}/`;

const NO_TEXT = 'The PDF has no text layer (a scanned document?): export it with text, or run OCR first';

export async function pdfText(bytes: Uint8Array): Promise<{ title: string; text: string }> {
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
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) pages.push(await pageText(doc, n));
    const text = pages.filter((page) => page !== '').join('\n\n');
    if (doc.numPages > 0 && text === '') throw new ExtractFailed(NO_TEXT);
    return { title: await titleOf(doc), text };
  } catch (err) {
    throw err instanceof ExtractFailed ? err : unreadable(err);
  } finally {
    await task.destroy();
  }
}

/** A page's text: items in pdf.js's order, a line break where it marks one, spaces collapsed, lines trimmed. */
async function pageText(doc: PDFDocumentProxy, n: number): Promise<string> {
  const page = await doc.getPage(n);
  try {
    const { items } = await page.getTextContent();
    let text = '';
    for (const item of items) if ('str' in item) text += item.hasEOL ? `${item.str}\n` : item.str;
    return text.replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
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
