// The file routes' work over SFTP (spec "File routes"), on normalised absolute paths (paths.ts). The SFTP server's
// refusals become PodFileError (missing path, permission, already there, failure); the size and kind checks too.
// Writes never leave half a file: the bytes go to a temporary file in the same folder, which then replaces the
// target in one rename. A replaced file keeps its owner and mode; a new file or folder takes the owner of its folder
// (a file put in a member's home stays theirs to change), mode 0644 or 0755.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Attributes, SFTPWrapper } from 'ssh2';
import { PodFileError, PodSshFailed } from './errors.js';
import { joinPath, parentOf } from './paths.js';
import { lstat, lstatOrNull, quietAfterUse, requireFile, requireFolder, sftpCall, sftpError, sizeText, stat, typeOf, type EntryType } from './sftp.js';

const MB = 1024 * 1024;
/** Spec "Limits": file read and write. */
export const TEXT_MAX_BYTES = 1 * MB;
/** Spec "Limits": file download and upload. */
export const TRANSFER_MAX_BYTES = 100 * MB;
/** Entries answered for one folder; the rest are left out (`truncated`). */
export const LIST_MAX_ENTRIES = 5000;
/** Time limits per operation, connecting included: one call, a recursive delete, a transfer of up to 100 MB. */
export const FILE_OP_LIMIT_MS = 30_000;
export const DELETE_LIMIT_MS = 120_000;
export const TRANSFER_LIMIT_MS = 10 * 60_000;
/** Entries removed at once inside one folder by a recursive delete. */
const DELETE_PARALLEL = 16;

export interface FolderEntry {
  name: string;
  path: string;
  type: EntryType;
  size: number;
  /** Permission bits in octal, e.g. 0644. */
  mode: string;
  modified_at: string;
}

/** A folder's entries, folders first, then by name; links are not followed. */
export async function listFolder(sftp: SFTPWrapper, path: string): Promise<{ entries: FolderEntry[]; truncated: boolean }> {
  await requireFolder(sftp, path);
  const list = await sftpCall<{ filename: string; attrs: Attributes }[]>('list', path, (done) => sftp.readdir(path, done));
  const entries = list
    .filter((e) => e.filename !== '.' && e.filename !== '..')
    .map((e): FolderEntry => ({
      name: e.filename, path: joinPath(path, e.filename), type: typeOf(e.attrs), size: e.attrs.size,
      mode: (e.attrs.mode & 0o7777).toString(8).padStart(4, '0'), modified_at: new Date(e.attrs.mtime * 1000).toISOString(),
    }))
    .sort((a, b) => Number(b.type === 'folder') - Number(a.type === 'folder') || a.name.localeCompare(b.name) || (a.name < b.name ? -1 : 1));
  return { entries: entries.slice(0, LIST_MAX_ENTRIES), truncated: entries.length > LIST_MAX_ENTRIES };
}

/** A text file's content (UTF-8, up to TEXT_MAX_BYTES). */
export async function readText(sftp: SFTPWrapper, path: string): Promise<string> {
  await requireFile(sftp, path, TEXT_MAX_BYTES);
  const chunks: Buffer[] = [];
  let size = 0;
  // One byte past the limit is asked for, so a file that grew since the stat is still refused, not cut.
  const stream = quietAfterUse(sftp.createReadStream(path, { start: 0, end: TEXT_MAX_BYTES }));
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } catch (err) {
    throw sftpError(err as Error, 'read', path);
  }
  if (size > TEXT_MAX_BYTES) throw new PodFileError('too_large', `${path} is larger than ${sizeText(TEXT_MAX_BYTES)}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new PodFileError('not_text', `${path} is not UTF-8 text: download it instead`);
  }
}

/** Text to write as bytes; too_large over TEXT_MAX_BYTES (checked before the pod is asked anything). */
export function textBytes(content: string): Buffer {
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.length > TEXT_MAX_BYTES) throw new PodFileError('too_large', `The content is ${sizeText(bytes.length)}: larger than ${sizeText(TEXT_MAX_BYTES)}`);
  return bytes;
}

/** Replaces (or makes) a file with text, up to TEXT_MAX_BYTES. */
export async function writeText(sftp: SFTPWrapper, path: string, content: string): Promise<{ path: string; size: number }> {
  const bytes = textBytes(content);
  await saveFile(sftp, path, async (temp) => {
    await sftpCall('write', path, (done) => sftp.writeFile(temp, bytes, { mode: 0o600 }, done));
  });
  return { path, size: bytes.length };
}

/** A file to stream out: its size (at most TRANSFER_MAX_BYTES) and a stream of exactly that many bytes. */
export async function openDownload(sftp: SFTPWrapper, path: string): Promise<{ size: number; stream: Readable }> {
  const { size } = await requireFile(sftp, path, TRANSFER_MAX_BYTES);
  if (size === 0) return { size, stream: Readable.from([]) }; // SFTP's `end` is inclusive: no range means nothing
  // The stream stops at the size announced in Content-Length, even if the file grows meanwhile.
  return { size, stream: quietAfterUse(sftp.createReadStream(path, { start: 0, end: size - 1 })) };
}

/** Saves a stream as <folder>/<name> (replacing a file there); the caller caps the stream at TRANSFER_MAX_BYTES. */
export async function saveUpload(sftp: SFTPWrapper, folder: string, name: string, source: Readable): Promise<{ path: string; size: number }> {
  const path = joinPath(folder, name);
  await saveFile(sftp, path, async (temp) => {
    try {
      await pipeline(source, quietAfterUse(sftp.createWriteStream(temp, { mode: 0o600 })));
    } catch (err) {
      // The source's own failure (a size cap, a broken upload) is the caller's to answer; the rest is SFTP's.
      if (isSourceError(err, source)) throw err;
      throw sftpError(err as Error, 'upload', path);
    }
  });
  return { path, size: (await stat(sftp, path)).size };
}

const isSourceError = (err: unknown, source: Readable) => source.errored === err || (err as { code?: string })?.code?.startsWith('FST_') === true;

export async function makeFolder(sftp: SFTPWrapper, path: string): Promise<{ path: string }> {
  const owner = await requireFolder(sftp, parentOf(path));
  if (await lstatOrNull(sftp, path)) throw new PodFileError('exists', `${path} already exists`);
  await sftpCall('mkdir', path, (done) => sftp.mkdir(path, { mode: 0o755 }, done));
  await sftpCall('mkdir', path, (done) => sftp.setstat(path, { uid: owner.uid, gid: owner.gid }, done));
  return { path };
}

/** Moves or renames; the new path must not exist yet. */
export async function movePath(sftp: SFTPWrapper, from: string, to: string): Promise<{ old_path: string; new_path: string }> {
  await lstat(sftp, from);
  await requireFolder(sftp, parentOf(to));
  if (await lstatOrNull(sftp, to)) throw new PodFileError('exists', `${to} already exists`);
  await sftpCall('rename', from, (done) => sftp.rename(from, to, done));
  return { old_path: from, new_path: to };
}

/** Deletes a file or link, or a folder with everything in it (links are removed, never followed). */
export async function deletePath(sftp: SFTPWrapper, path: string): Promise<{ path: string; deleted: number }> {
  return { path, deleted: await removeTree(sftp, path, await lstat(sftp, path)) };
}

async function removeTree(sftp: SFTPWrapper, path: string, attrs: Attributes): Promise<number> {
  if (typeOf(attrs) !== 'folder') {
    await sftpCall('delete', path, (done) => sftp.unlink(path, done));
    return 1;
  }
  const list = (await sftpCall<{ filename: string; attrs: Attributes }[]>('delete', path, (done) => sftp.readdir(path, done)))
    .filter((e) => e.filename !== '.' && e.filename !== '..');
  let deleted = 0;
  for (let i = 0; i < list.length; i += DELETE_PARALLEL) {
    const counts = await Promise.all(list.slice(i, i + DELETE_PARALLEL).map((e) => removeTree(sftp, joinPath(path, e.filename), e.attrs)));
    deleted += counts.reduce((a, b) => a + b, 0);
  }
  await sftpCall('delete', path, (done) => sftp.rmdir(path, done));
  return deleted + 1;
}

/**
 * Writes a file through a temporary file beside it, then renames it over the target: the target is either the old
 * file or the whole new one. The temporary file is removed when anything fails.
 */
async function saveFile(sftp: SFTPWrapper, path: string, write: (temp: string) => Promise<void>): Promise<void> {
  const folder = await requireFolder(sftp, parentOf(path));
  const existing = await lstatOrNull(sftp, path);
  // A link is refused rather than followed: the rename would replace the link itself with a file.
  if (existing && typeOf(existing) !== 'file') throw new PodFileError('not_a_file', `${path} is a ${typeOf(existing)}, not a file`);
  // Not named after the target: a name near NAME_MAX would not fit.
  const temp = joinPath(parentOf(path), `.quad-${randomBytes(8).toString('hex')}.part`);
  try {
    await write(temp);
    const like = existing ?? { ...folder, mode: 0o644 };
    await sftpCall('write', path, (done) => sftp.setstat(temp, { mode: like.mode & 0o7777, uid: like.uid, gid: like.gid }, done));
    await replace(sftp, temp, path);
  } catch (err) {
    await sftpCall('delete', temp, (done) => sftp.unlink(temp, done)).catch(() => {}); // it may not exist yet
    throw err;
  }
}

/** Renames over an existing file: OpenSSH's posix-rename when the server offers it (atomic), else unlink then rename. */
async function replace(sftp: SFTPWrapper, temp: string, path: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => sftp.ext_openssh_rename(temp, path, (err) => (err ? reject(sftpError(err, 'write', path)) : resolve())));
    return;
  } catch (err) {
    if (err instanceof PodFileError || err instanceof PodSshFailed) throw err;
    // ssh2 throws at once when the server does not offer posix-rename@openssh.com.
  }
  await sftpCall('write', path, (done) => sftp.unlink(path, done)).catch((err: unknown) => {
    if (!(err instanceof PodFileError && err.problem === 'not_found')) throw err;
  });
  await sftpCall('write', path, (done) => sftp.rename(temp, path, done));
}
