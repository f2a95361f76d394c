// Request and answer shapes of the file routes (spec "File routes"). Paths are plain strings here: paths.ts checks
// and normalises them, so a bad one gets a 400 that says what is wrong with it.
import { ErrorBody, Type } from '@quad/core';
import { PATH_MAX_CHARS } from './paths.js';
import { LIST_MAX_ENTRIES } from './files.js';

const Path = (description: string) => Type.String({ minLength: 1, maxLength: PATH_MAX_CHARS, description });

/** The file routes' failures beyond the officer routes' own: 409 pod not running, 413, 424 provider, 502 SSH. */
export const FileErrors = { 409: ErrorBody, 413: ErrorBody, 424: ErrorBody, 502: ErrorBody, 503: ErrorBody };

export const ListQuery = Type.Object({
  path: Type.Optional(Type.String({ minLength: 1, maxLength: PATH_MAX_CHARS, default: '/', description: 'absolute path of a folder on the pod; default /' })),
}, { additionalProperties: false });
export const PathBody = Type.Object({ path: Path('absolute path on the pod') }, { additionalProperties: false });
export const WriteBody = Type.Object({
  path: Path('absolute path of the file on the pod (made if missing; its folder must exist)'),
  content: Type.String({ description: 'the whole new text, up to 1 MB as UTF-8 (413 above)' }),
}, { additionalProperties: false });
export const RenameBody = Type.Object({
  old_path: Path('absolute path of what to move'),
  new_path: Path('absolute path it gets; nothing may be there yet'),
}, { additionalProperties: false });

export const EntryOut = Type.Object({
  name: Type.String(),
  path: Type.String(),
  type: Type.Union([Type.Literal('folder'), Type.Literal('file'), Type.Literal('link'), Type.Literal('other')], { description: 'links are shown as links, not followed' }),
  size: Type.Integer({ description: 'bytes' }),
  mode: Type.String({ description: 'permission bits in octal, e.g. 0644' }),
  modified_at: Type.String({ format: 'date-time' }),
});
export const ListOut = Type.Object({
  path: Type.String({ description: 'the folder, normalised' }),
  entries: Type.Array(EntryOut, { description: 'folders first, then by name' }),
  truncated: Type.Boolean({ description: `more than ${LIST_MAX_ENTRIES} entries: the rest are left out` }),
});
export const ReadOut = Type.Object({ path: Type.String(), size: Type.Integer(), content: Type.String() });
export const SavedOut = Type.Object({ path: Type.String(), size: Type.Integer({ description: 'bytes written' }) });
export const PathOut = Type.Object({ path: Type.String() });
export const RenameOut = Type.Object({ old_path: Type.String(), new_path: Type.String() });
export const DeleteOut = Type.Object({ path: Type.String(), deleted: Type.Integer({ description: 'files, links and folders removed' }) });
