// Text of an uploaded Word document (.docx) with mammoth's raw text: paragraphs apart by a blank line, no
// formatting. A .docx is a zip of XML parts, and a small one can unpack to gigabytes: its central directory is read
// first (zip.ts) and the file refused when a part would unpack past MAX_PART_BYTES or is compressed more than
// MAX_RATIO to 1, before anything is inflated; then mammoth reads the parts through zip.ts, each inflated no further
// than its stated size. The failures an officer meets (not a zip, often an old .doc renamed; no document part;
// broken XML; a part too large) each get their own reason.
import mammoth from 'mammoth';
import { ExtractFailed } from './failed.js';
import { readPart, zipParts, ZipOverflow, type ZipPart } from './zip.js';

/** The most a part may unpack to: a document.xml of a thousand pages is a few megabytes. */
export const MAX_PART_BYTES = 20 * 1024 * 1024;
/** The most a part of a megabyte or more may be compressed; XML compresses about 10 to 1. */
export const MAX_RATIO = 100;
const RATIO_FROM_BYTES = 1024 * 1024;

const PREFIX = 'The .docx file cannot be read';

export async function docxText(bytes: Uint8Array): Promise<{ title: string; text: string }> {
  try {
    const parts = checkedParts(bytes);
    const { value } = await mammoth.extractRawText({ file: zipFile(bytes, parts) } as unknown as Parameters<typeof mammoth.extractRawText>[0]);
    // No title: a .docx's core properties are often a template's; the caller falls back to the file name.
    return { title: '', text: value.trim() };
  } catch (err) {
    if (err instanceof ExtractFailed) throw err;
    throw new ExtractFailed(`${PREFIX}: ${reason(err)}`, { cause: err });
  }
}

/** The archive's parts, each within the caps by its stated sizes. */
function checkedParts(bytes: Uint8Array): Map<string, ZipPart> {
  const parts = new Map<string, ZipPart>();
  for (const part of zipParts(bytes)) {
    const name = JSON.stringify(part.name.slice(0, 100));
    if (part.size > MAX_PART_BYTES) {
      throw new ExtractFailed(`${PREFIX}: its part ${name} unpacks to ${megabytes(part.size)}, more than the ${megabytes(MAX_PART_BYTES)} a part may`);
    }
    if (part.size >= RATIO_FROM_BYTES && part.size > part.compressedSize * MAX_RATIO) {
      throw new ExtractFailed(`${PREFIX}: its part ${name} is compressed more than ${MAX_RATIO} to 1 (a zip bomb?)`);
    }
    parts.set(part.name, part);
  }
  return parts;
}

const megabytes = (n: number) => `${Math.ceil(n / (1024 * 1024))} MB`;

/**
 * The archive as mammoth reads one (its `file` input, the one its own tests use): whether a part exists, and a part
 * as bytes or text, each inflated by zip.ts instead of by jszip, which would inflate a part in full whatever its size.
 */
function zipFile(bytes: Uint8Array, parts: Map<string, ZipPart>) {
  const read = (name: string) => {
    const part = parts.get(name);
    if (!part) throw new Error(`no part ${name}`);
    return readPart(bytes, part);
  };
  return {
    exists: (name: string) => parts.has(name),
    read: async (name: string, encoding?: string) => {
      const data = read(name);
      if (encoding === 'base64') return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
      return encoding ? new TextDecoder(encoding).decode(data) : data;
    },
  };
}

function reason(err: unknown): string {
  if (err instanceof ZipOverflow) return 'a part unpacks to more than its zip directory states (a zip bomb?)';
  const message = err instanceof Error ? err.message : '';
  if (message.includes('main document part')) return 'it has no document part (is it really a .docx?)';
  if (message.includes('xmldom')) return 'its document XML is broken';
  return 'it is damaged or not a .docx file (an old .doc must be saved as .docx first)';
}
