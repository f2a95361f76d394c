// POST /api/dashboard/<org>/knowledge/documents: officers upload files (multipart/form-data) into sources. The
// multipart parser is registered here only (this file's encapsulated context). Parts are read one at a time as they
// stream in, each file into memory up to its cap (the PDF and .docx readers need the whole file), so a request holds
// at most 25 MB; the fields may come before or after the files, so the files are read first and stored after.
import multipart from '@fastify/multipart';
import { ErrorBody, HttpError, OrgParams, Type, badRequest, forbidden, type RoutesPlugin } from '@quad/core';
import type { FastifyRequest } from 'fastify';
import { settingsOf } from '../context.js';
import {
  DEFAULT_CATEGORY, MAX_FILE_BYTES, MAX_FILES, MAX_UPLOAD_BYTES, documentFolder, uploadDocuments, type UploadedFile,
} from '../documents.js';
import { isPublisher } from '../settings.js';

const MB = 1024 * 1024;
const FIELDS = new Set(['folder', 'category', 'public']);

const FileOut = Type.Object({
  name: Type.String({ description: 'the file name as sent' }),
  key: Type.Union([Type.String(), Type.Null()], { description: 'its source: <folder>/<file name> in lower case' }),
  passages: Type.Integer(),
  changed: Type.Boolean({ description: 'false: the same file at the same passage size, nothing written' }),
  error: Type.Union([Type.String(), Type.Null()]),
});

const tooLarge = (message: string, reason: string) => new HttpError(413, message, reason);

/** The files and fields of the request, every cap checked as the bytes arrive. */
async function readParts(request: FastifyRequest): Promise<{ files: UploadedFile[]; fields: Record<string, string> }> {
  if (!request.isMultipart()) throw new HttpError(415, 'Send the files as multipart/form-data (field files, and optionally folder, category, public)', 'not_multipart');
  const files: UploadedFile[] = [];
  const fields: Record<string, string> = {};
  let total = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (FIELDS.has(part.fieldname)) fields[part.fieldname] = String(part.value);
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) {
        total += (chunk as Buffer).length;
        if (total > MAX_UPLOAD_BYTES) throw tooLarge(`The files come to more than ${MAX_UPLOAD_BYTES / MB} MB together: upload them in smaller groups`, 'upload_too_large');
        chunks.push(chunk as Buffer);
      }
      if (part.file.truncated) throw tooLarge(`${part.filename} is larger than ${MAX_FILE_BYTES / MB} MB`, 'file_too_large');
      files.push({ name: part.filename, bytes: Buffer.concat(chunks) });
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(`A file is larger than ${MAX_FILE_BYTES / MB} MB`, 'file_too_large');
    if (code === 'FST_FILES_LIMIT') throw tooLarge(`At most ${MAX_FILES} files in one upload`, 'too_many_files');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw tooLarge('Too many form fields', 'too_many_fields');
    throw badRequest('The multipart body could not be read', 'bad_multipart');
  }
  return { files, fields };
}

function booleanField(value: string | undefined): boolean | null {
  if (value === undefined || value === '') return false;
  if (['true', '1', 'on'].includes(value.toLowerCase())) return true;
  if (['false', '0', 'off'].includes(value.toLowerCase())) return false;
  return null;
}

export default (async (app) => {
  await app.register(multipart, {
    limits: { files: MAX_FILES, fileSize: MAX_FILE_BYTES, fields: 10, fieldSize: 1024, parts: MAX_FILES + 10, headerPairs: 100 },
  });

  app.post('/api/dashboard/:org/knowledge/documents', {
    config: { auth: 'officer' },
    schema: {
      tags: ['knowledge'], consumes: ['multipart/form-data'],
      summary: `Upload documents (multipart: files, 1 to ${MAX_FILES}, ${MAX_FILE_BYTES / MB} MB each, ${MAX_UPLOAD_BYTES / MB} MB together; folder, default upload; category, default documents; public) into the sources <folder>/<file name>: .txt .md .markdown .csv .html .htm .pdf .docx. Each file answers its key, passages and error; a failing file does not stop the others`,
      params: OrgParams,
      response: {
        200: Type.Object({ files: Type.Array(FileOut) }),
        400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 415: ErrorBody,
      },
    },
  }, async (request) => {
    const { files, fields } = await readParts(request);
    if (!files.length) throw badRequest('No files: send 1 to 20 in the field files', 'no_files', { field: 'body.files' });
    const folder = documentFolder(fields.folder);
    if (folder === null) throw badRequest('body.folder: letters, digits and ._:- in segments separated by /', 'bad_folder', { field: 'body.folder' });
    const category = (fields.category ?? '').trim() || DEFAULT_CATEGORY;
    if (category.length > 200) throw badRequest('body.category: up to 200 characters', 'bad_category', { field: 'body.category' });
    const isPublic = booleanField(fields.public);
    if (isPublic === null) throw badRequest('body.public: true or false', 'bad_public', { field: 'body.public' });
    if (isPublic && !isPublisher(settingsOf(app.quad), request.org!)) {
      throw forbidden('Only publisher orgs may write public sources (KNOWLEDGE_PUBLISHERS, or the superadmin\'s publisher switch)', 'not_publisher');
    }
    const results = await uploadDocuments({ em: request.em, org: request.org!, services: app.quad, log: request.log }, files, { folder, category, public: isPublic });
    await request.audit(request.em, 'knowledge.documents_uploaded', {
      folder, files: results.map((r) => ({ name: r.name, key: r.key, changed: r.changed, error: r.error })),
    });
    return { files: results };
  });
}) satisfies RoutesPlugin;
