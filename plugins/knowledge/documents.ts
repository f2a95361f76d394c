// Uploaded documents (spec "Knowledge (officer…)", POST /documents): each file becomes the source
// `<folder>/<file name>` in lower case — its text read by extract/, split into passages with its title on each,
// written through writeSource (embedded when the org has an embedder). A file whose bytes and passage size are those
// of the source's current version writes nothing; a failing file (unreadable, no text, a limit) is reported with its
// error and the others go on; each file is a row of the run log.
import { createHash } from 'node:crypto';
import { HttpError, type CoreServices, type EntityManager, type OrgSnapshot } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { knowledgeContext, type KnowledgeContext } from './context.js';
import { extractDocument, ExtractFailed } from './extract/index.js';
import { splitPassages } from './extract/passages.js';
import { recordRun } from './runs.js';
import { KEY_PATTERN, MAX_CHUNKS, findSource, writeSource } from './sources.js';

export const MAX_FILES = 20;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
export const DEFAULT_FOLDER = 'upload';
export const DEFAULT_CATEGORY = 'documents';
const UPLOADS_LIMIT = 'knowledge.uploads_per_day';

export interface UploadedFile { name: string; bytes: Buffer }

export interface UploadOptions { folder: string; category: string; public: boolean }

export interface FileResult {
  name: string;
  /** The source key, or null when the name gives none. */
  key: string | null;
  /** Passages of the source after the upload (its current version's when unchanged). */
  passages: number;
  changed: boolean;
  error: string | null;
}

/** `<folder>/<file name>` in lower case, characters a key cannot hold as `-`; null when nothing is left. */
export function documentKey(folder: string, fileName: string): string | null {
  const base = fileName.split(/[/\\]/).pop()!.trim();
  const key = `${folder}/${base}`.toLowerCase().replace(/[^a-z0-9._:/-]+/g, '-');
  return base && KEY_PATTERN.test(key) ? key : null;
}

/** The folder field: segments of letters, digits and `._:-` (not `.` or `..`) joined by `/`; outer slashes dropped. */
export function documentFolder(raw: string | undefined): string | null {
  const folder = (raw ?? '').trim().replace(/^\/+|(?<!\/)\/+$/g, '') || DEFAULT_FOLDER;
  const segments = folder.split('/');
  const valid = folder.length <= 200 && segments.every((seg) => /^[A-Za-z0-9._:-]+$/.test(seg) && seg !== '.' && seg !== '..');
  return valid ? folder.toLowerCase() : null;
}

interface UploadContext { em: EntityManager; org: OrgSnapshot; services: CoreServices; log: FastifyBaseLogger }

/** Every file in turn; never throws for one file's failure. */
export async function uploadDocuments(ctx: UploadContext, files: UploadedFile[], options: UploadOptions): Promise<FileResult[]> {
  // One read of the org's settings and one embedder for the whole upload.
  const knowledge = await knowledgeContext(ctx.services, ctx.em, ctx.org);
  const results: FileResult[] = [];
  for (const file of files) results.push(await uploadOne(ctx, knowledge, file, options));
  return results;
}

async function uploadOne(ctx: UploadContext, knowledge: KnowledgeContext, file: UploadedFile, options: UploadOptions): Promise<FileResult> {
  const { em, org, services } = ctx;
  const startedAt = new Date();
  const key = documentKey(options.folder, file.name);
  const result: FileResult = { name: file.name, key, passages: 0, changed: false, error: null };
  try {
    if (!key) throw new ExtractFailed('The file name gives no source key: name the file with letters or digits');
    await services.limits.consume(em, org.id, UPLOADS_LIMIT, 1);
    const { chunk_chars: chunkChars, chunk_overlap: overlap } = knowledge.settings;
    // The same bytes at the same passage size are the same version: nothing to read or write.
    const hash = `upload:${createHash('sha256').update(file.bytes).digest('hex')}:${chunkChars}:${overlap}`;
    const current = await findSource(knowledge.db, key);
    if (current?.current_version?.content_hash === hash) {
      result.passages = current.current_version.chunks;
    } else {
      const { title: ownTitle, text } = await extractDocument(file.name, file.bytes, { maxChars: MAX_CHUNKS * chunkChars });
      const title = ownTitle || file.name;
      const passages = splitPassages(text, { chunkChars, overlap, title });
      if (passages.length > MAX_CHUNKS) {
        throw new ExtractFailed(`The file splits into ${passages.length} passages; a source holds up to ${MAX_CHUNKS}: raise chunk_chars or split the file`);
      }
      const written = await writeSource({ ...knowledge, origin: 'upload', chunkOverlap: overlap }, key, {
        category: options.category, title, url: '', public: options.public, content_hash: hash,
        chunks: passages.map((content, ordinal) => ({ ordinal, content })),
      });
      result.passages = passages.length;
      result.changed = written.changed;
    }
  } catch (err) {
    result.error = err instanceof ExtractFailed || err instanceof HttpError ? err.message : 'The file could not be stored; try again';
    if (!(err instanceof ExtractFailed || err instanceof HttpError)) ctx.log.error({ err, file: file.name }, 'knowledge upload failed unexpectedly');
  }
  await recordRun(knowledge.db, {
    sourceKey: key ?? file.name.slice(0, 255), kind: 'upload', startedAt, changed: result.changed, passages: result.changed ? result.passages : 0, error: result.error,
  });
  return result;
}
