// Text of an uploaded Word document (.docx) with mammoth's raw text: paragraphs apart by a blank line, no
// formatting. A .docx is a zip of XML parts; the failures an officer meets (not a zip, often an old .doc renamed;
// no document part; broken XML) each get their own reason.
import mammoth from 'mammoth';
import { ExtractFailed } from './index.js';

export async function docxText(bytes: Uint8Array): Promise<{ title: string; text: string }> {
  try {
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    // No title: a .docx's core properties are often a template's; the caller falls back to the file name.
    return { title: '', text: value.trim() };
  } catch (err) {
    throw new ExtractFailed(`The .docx file cannot be read: ${reason(err)}`, { cause: err });
  }
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (message.includes('main document part')) return 'it has no document part (is it really a .docx?)';
  if (message.includes('xmldom')) return 'its document XML is broken';
  return 'it is damaged or not a .docx file (an old .doc must be saved as .docx first)';
}
