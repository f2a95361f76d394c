// Paths of the file routes (spec "File routes": paths absolute): each is normalised before anything else looks at it,
// so `/tmp/../root` or `/root/` is `/root` when the delete refusal (/, /workspace, /root, /home) is checked and `..`
// cannot reach a refused folder. Relative paths and NUL are refused: SFTP would resolve the first against root's
// home, and the second cuts a C string short.
import { posix } from 'node:path';
import { badRequest } from '@quad/core';

export const PATH_MAX_CHARS = 4096;
/** Folders a delete (or a move, which empties their place just the same) refuses: the pod would not work without them. */
export const PROTECTED_FOLDERS: readonly string[] = ['/', '/workspace', '/root', '/home'];

/** The absolute path, normalised (no `.`, `..`, repeated or trailing slashes); 400 naming the field otherwise. */
export function podPath(input: string, field = 'path'): string {
  if (input.includes('\0')) throw badRequest(`${field}: a path cannot contain NUL`, 'bad_path', { field });
  if (!input.startsWith('/')) throw badRequest(`${field}: the path must be absolute (start with /)`, 'bad_path', { field });
  if (input.length > PATH_MAX_CHARS) throw badRequest(`${field}: at most ${PATH_MAX_CHARS} characters`, 'bad_path', { field });
  const normal = posix.normalize(input);
  return normal.length > 1 ? normal.replace(/(?<!\/)\/+$/, '') : normal;
}

/** Whether a normalised path is one of the folders the pod needs. */
export function isProtectedFolder(path: string): boolean {
  return PROTECTED_FOLDERS.includes(path);
}

/** The file name a path ends with ('' for /). */
export function baseName(path: string): string {
  return posix.basename(path);
}

/** The folder holding a path (/ for / itself). */
export function parentOf(path: string): string {
  return posix.dirname(path);
}

/** A file name as a client sent it (an upload's filename) made safe to join to a folder: its last part, or null. */
export function uploadName(filename: string): string | null {
  const name = filename.split(/[/\\]/).pop() ?? '';
  if (!name || name === '.' || name === '..' || name.includes('\0') || Buffer.byteLength(name) > 255) return null; // NAME_MAX
  return name;
}

export function joinPath(folder: string, name: string): string {
  return posix.join(folder, name);
}
