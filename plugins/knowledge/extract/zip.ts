// A zip archive read from its central directory (the format of .docx files), for the .docx reader: the parts with
// the sizes the directory gives, read before anything is inflated, and each part inflated on its own with a cap, so
// a part that inflates past its stated size stops there instead of filling the memory. Stored and deflated parts,
// Zip64 sizes; no encryption, no multi-disk archives (a .docx has neither). Any damage is a ZipDamaged.
import { inflateRawSync } from 'node:zlib';

export class ZipDamaged extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipDamaged';
  }
}

/** A part whose data inflates past the size the directory states: made to (a zip bomb), or damaged. */
export class ZipOverflow extends ZipDamaged {}

/** A part of the archive as its central directory describes it. */
export interface ZipPart {
  name: string;
  /** 0 stored, 8 deflated (others are refused when read). */
  method: number;
  flags: number;
  compressedSize: number;
  /** Its size once inflated, as the directory states it. */
  size: number;
  /** Where its local header starts. */
  offset: number;
}

const END = 0x06054b50;
const END64 = 0x06064b50;
const END64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;
/** The end record is 22 bytes and a comment of up to 65,535. */
const END_SEARCH = 22 + MAX16;

/** The parts of a zip archive, from its central directory. */
export function zipParts(bytes: Uint8Array): ZipPart[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  let count = view.getUint16(end + 10, true);
  let size = view.getUint32(end + 12, true);
  let start = view.getUint32(end + 16, true);
  if (count === MAX16 || size === MAX32 || start === MAX32) {
    const locator = end - 20;
    if (locator < 0 || view.getUint32(locator, true) !== END64_LOCATOR) throw new ZipDamaged('no Zip64 end record locator');
    const end64 = safeNumber(view.getBigUint64(locator + 8, true));
    within(view, end64, 56);
    if (view.getUint32(end64, true) !== END64) throw new ZipDamaged('no Zip64 end record');
    count = safeNumber(view.getBigUint64(end64 + 32, true));
    size = safeNumber(view.getBigUint64(end64 + 40, true));
    start = safeNumber(view.getBigUint64(end64 + 48, true));
  }
  within(view, start, size);
  const parts: ZipPart[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    within(view, at, 46);
    if (view.getUint32(at, true) !== CENTRAL) throw new ZipDamaged('a central directory entry is missing');
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    within(view, at + 46, nameLength + extraLength);
    const flags = view.getUint16(at + 8, true);
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength);
    const part: ZipPart = {
      // Bit 11: the name is UTF-8; otherwise CP437, whose ASCII half is all a .docx uses.
      name: new TextDecoder(flags & 0x800 ? 'utf-8' : 'latin1').decode(nameBytes),
      method: view.getUint16(at + 10, true),
      flags,
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
    };
    zip64Sizes(view, part, at + 46 + nameLength, extraLength);
    parts.push(part);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return parts;
}

/** The last end-of-central-directory record within the last 65,557 bytes. */
function findEnd(view: DataView): number {
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - END_SEARCH); at--) {
    if (view.getUint32(at, true) === END) return at;
  }
  throw new ZipDamaged('not a zip archive');
}

/** Sizes and offset too large for the entry's 32-bit fields are in its Zip64 extra field (id 1), in this order. */
function zip64Sizes(view: DataView, part: ZipPart, extra: number, length: number): void {
  if (part.size !== MAX32 && part.compressedSize !== MAX32 && part.offset !== MAX32) return;
  for (let at = extra; at + 4 <= extra + length;) {
    const id = view.getUint16(at, true);
    const fieldLength = view.getUint16(at + 2, true);
    if (id === 1) {
      let field = at + 4;
      const next = () => {
        if (field + 8 > at + 4 + fieldLength) throw new ZipDamaged('a Zip64 extra field is short');
        const value = safeNumber(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (part.size === MAX32) part.size = next();
      if (part.compressedSize === MAX32) part.compressedSize = next();
      if (part.offset === MAX32) part.offset = next();
      return;
    }
    at += 4 + fieldLength;
  }
  throw new ZipDamaged('a Zip64 extra field is missing');
}

/**
 * A part's bytes, inflated; a ZipDamaged when it is encrypted, compressed by another method, or its data is not
 * what the directory says. Inflating stops at the size the directory states, so a part cannot unpack to more.
 */
export function readPart(bytes: Uint8Array, part: ZipPart): Uint8Array {
  if (part.flags & 1) throw new ZipDamaged(`${part.name} is encrypted`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  within(view, part.offset, 30);
  if (view.getUint32(part.offset, true) !== LOCAL) throw new ZipDamaged(`${part.name} has no local header`);
  const data = part.offset + 30 + view.getUint16(part.offset + 26, true) + view.getUint16(part.offset + 28, true);
  within(view, data, part.compressedSize);
  const compressed = bytes.subarray(data, data + part.compressedSize);
  if (part.method === 0) {
    if (part.compressedSize !== part.size) throw new ZipDamaged(`${part.name} is stored with two sizes`);
    return compressed;
  }
  if (part.method !== 8) throw new ZipDamaged(`${part.name} is compressed by method ${part.method}`);
  let inflated: Buffer;
  try {
    // maxOutputLength is at least 1: an empty part inflates to nothing all the same.
    inflated = inflateRawSync(compressed, { maxOutputLength: Math.max(1, part.size) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new ZipOverflow(`${part.name} inflates past the size its directory states`);
    throw new ZipDamaged(`${part.name} does not inflate`);
  }
  if (inflated.length !== part.size) throw new ZipDamaged(`${part.name} inflates to another size than its directory states`);
  return inflated;
}

function within(view: DataView, at: number, length: number): void {
  if (at < 0 || length < 0 || at + length > view.byteLength) throw new ZipDamaged('an offset points outside the file');
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipDamaged('a Zip64 size is out of range');
  return Number(value);
}
