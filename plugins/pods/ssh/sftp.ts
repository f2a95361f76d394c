// SFTP calls as promises, with the server's refusals as PodFileError (missing path, permission, failure) and a
// failure of the channel itself as PodSshFailed; plus the stat checks the file operations share.
import type { Readable, Writable } from 'node:stream';
import type { Attributes, SFTPWrapper } from 'ssh2';
import { PodFileError, PodSshFailed } from './errors.js';

const MB = 1024 * 1024;
export const sizeText = (bytes: number) => (bytes >= MB ? `${Math.round((bytes / MB) * 10) / 10} MB` : `${bytes} bytes`);

export type EntryType = 'folder' | 'file' | 'link' | 'other';
const S_IFMT = 0o170000;
export const typeOf = (attrs: Attributes): EntryType => {
  switch (attrs.mode & S_IFMT) {
    case 0o040000: return 'folder';
    case 0o100000: return 'file';
    case 0o120000: return 'link';
    default: return 'other';
  }
};

// SFTP status codes (draft-ietf-secsh-filexfer-02 §7) that the server answers for a refused operation.
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

/** An SFTP callback's error as ours: a status from the server is about the path; anything else is the connection. */
export function sftpError(err: Error & { code?: unknown }, what: string, path: string): Error {
  if (err.code === NO_SUCH_FILE) return new PodFileError('not_found', `${path}: no such file or folder on the pod`);
  if (err.code === PERMISSION_DENIED) return new PodFileError('denied', `${path}: permission denied on the pod`);
  if (typeof err.code === 'number') return new PodFileError('failed', `${what} ${path} failed on the pod`);
  return new PodSshFailed(`The SSH connection to the pod failed during ${what}`, 'lost', { cause: err });
}

/** One SFTP call as a promise, its errors as ours. */
export function sftpCall<T = void>(what: string, path: string, call: (done: (err: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    try {
      call((err, value) => (err ? reject(sftpError(err, what, path)) : resolve(value as T)));
    } catch (err) {
      reject(sftpError(err as Error, what, path)); // ssh2 throws at once when the channel is already gone
    }
  });
}

/**
 * An SFTP stream kept from crashing the process late: when its session ends, ssh2 may fail the stream's last request
 * (the close of its file handle) after its reader or writer is done and has stopped listening. While the stream is in
 * use, its consumer (pipeline, for await, the answer) hears its errors as before.
 */
export function quietAfterUse<S extends Readable | Writable>(stream: S): S {
  stream.on('error', () => {});
  return stream;
}

export const stat = (sftp: SFTPWrapper, path: string) => sftpCall<Attributes>('stat', path, (done) => sftp.stat(path, done));
export const lstat = (sftp: SFTPWrapper, path: string) => sftpCall<Attributes>('stat', path, (done) => sftp.lstat(path, done));

/** The attributes of a path, or null when there is nothing there. */
export async function lstatOrNull(sftp: SFTPWrapper, path: string): Promise<Attributes | null> {
  try {
    return await lstat(sftp, path);
  } catch (err) {
    if (err instanceof PodFileError && err.problem === 'not_found') return null;
    throw err;
  }
}

export async function requireFolder(sftp: SFTPWrapper, path: string): Promise<Attributes> {
  const attrs = await stat(sftp, path);
  if (typeOf(attrs) !== 'folder') throw new PodFileError('not_a_folder', `${path} is not a folder`);
  return attrs;
}

/** The file's attributes (links followed); not_a_file for a folder or device, too_large over `max` bytes. */
export async function requireFile(sftp: SFTPWrapper, path: string, max: number): Promise<Attributes> {
  const attrs = await stat(sftp, path);
  if (typeOf(attrs) !== 'file') throw new PodFileError('not_a_file', `${path} is not a file`);
  if (attrs.size > max) throw new PodFileError('too_large', `${path} is ${sizeText(attrs.size)}: larger than ${sizeText(max)}`);
  return attrs;
}
