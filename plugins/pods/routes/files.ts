// File routes (spec "File routes", officer): a running pod's files over SFTP as root with the org's backend key.
// Each route checks its paths first (absolute, normalised: ssh/paths.ts), then the pod (404 not made here, 409 not
// running), then does its SFTP work within a time limit (502 when SSH fails). Read and write take up to 1 MB of
// text, download and upload up to 100 MB, streamed through without holding the file. The writing routes are audited.
// The multipart parser is registered here only (this file's encapsulated context).
import multipart from '@fastify/multipart';
import { ErrorBody, HttpError, Type, badRequest, type RoutesPlugin } from '@quad/core';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { Errors, PodParams, officer } from '../schemas.js';
import { withPodSsh, type PodLogin, type PodSession } from '../ssh/client.js';
import { openPodDownload } from '../ssh/download.js';
import {
  DeleteOut, FileErrors, ListOut, ListQuery, PathBody, PathOut, ReadOut, RenameBody, RenameOut, SavedOut, WriteBody,
} from '../ssh/file-schemas.js';
import {
  DELETE_LIMIT_MS, FILE_OP_LIMIT_MS, TRANSFER_LIMIT_MS, TRANSFER_MAX_BYTES, deletePath, listFolder, makeFolder, movePath, readText,
  saveUpload, textBytes, writeText,
} from '../ssh/files.js';
import { sizeText } from '../ssh/sftp.js';
import { answeringFileErrors } from '../ssh/http-errors.js';
import { PATH_MAX_CHARS, PROTECTED_FOLDERS, baseName, isProtectedFolder, podPath, uploadName } from '../ssh/paths.js';
import { runningPodLogin } from '../ssh/pod-login.js';

const PREFIX = '/api/compute/:org/pods/:pod_id/files';
/** JSON bodies of the small routes; a write's 1 MB of text may take 6 MB as JSON (\u escapes). */
const SMALL_BODY_BYTES = 64 * 1024;
const WRITE_BODY_BYTES = 7 * 1024 * 1024;

/** 400 for a protected folder: deleting or moving it would break the pod. */
function refuseProtected(path: string, field: string, verb: string): void {
  if (isProtectedFolder(path)) {
    throw badRequest(`${field}: ${path} cannot be ${verb} (${PROTECTED_FOLDERS.join(', ')} are kept)`, 'protected_path', { field, path });
  }
}

/** Content-Disposition for a file name: an ASCII fallback, and the exact name (RFC 6266, RFC 8187). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export default (async (app) => {
  const services = app.quad;
  await app.register(multipart, {
    limits: { files: 1, fileSize: TRANSFER_MAX_BYTES, fields: 1, fieldSize: PATH_MAX_CHARS * 4, parts: 2, headerPairs: 100 },
  });

  /** The request's pod, running, as a login (404, 409, 400, 424 otherwise). */
  const podLogin = (request: FastifyRequest, podId: string) => runningPodLogin(services, request.db, podId);

  /** SFTP work on the pod within the limit; its failures as the spec's answers. */
  const onPod = <T>(request: FastifyRequest, login: PodLogin, limitMs: number, work: (session: PodSession) => Promise<T>) =>
    answeringFileErrors(request.log, () => withPodSsh(login, limitMs, work));

  app.get(PREFIX, {
    config: officer,
    schema: { tags: ['pods'], summary: 'A folder\'s entries, folders first', params: PodParams, querystring: ListQuery, response: { 200: ListOut, ...Errors, ...FileErrors } },
  }, async (request) => {
    const path = podPath(request.query.path ?? '/', 'query.path');
    const login = await podLogin(request, request.params.pod_id);
    const listed = await onPod(request, login, FILE_OP_LIMIT_MS, async (s) => listFolder(await s.sftp(), path));
    return { path, ...listed };
  });

  app.post(`${PREFIX}/read`, {
    config: officer, bodyLimit: SMALL_BODY_BYTES,
    schema: { tags: ['pods'], summary: 'A text file\'s content, up to 1 MB (413 above; 400 when it is not UTF-8 text)', params: PodParams, body: PathBody, response: { 200: ReadOut, ...Errors, ...FileErrors } },
  }, async (request) => {
    const path = podPath(request.body.path, 'body.path');
    const login = await podLogin(request, request.params.pod_id);
    const content = await onPod(request, login, FILE_OP_LIMIT_MS, async (s) => readText(await s.sftp(), path));
    return { path, size: Buffer.byteLength(content), content };
  });

  app.post(`${PREFIX}/write`, {
    config: officer, bodyLimit: WRITE_BODY_BYTES,
    schema: { tags: ['pods'], summary: 'Replace (or make) a file with text, up to 1 MB (413 above)', params: PodParams, body: WriteBody, response: { 200: SavedOut, ...Errors, ...FileErrors } },
  }, async (request) => {
    const path = podPath(request.body.path, 'body.path');
    await answeringFileErrors(request.log, async () => textBytes(request.body.content)); // 413 before the pod is asked
    const login = await podLogin(request, request.params.pod_id);
    const saved = await onPod(request, login, FILE_OP_LIMIT_MS, async (s) => writeText(await s.sftp(), path, request.body.content));
    await request.audit(request.em, 'podhost.file_write', { pod_id: request.params.pod_id, path });
    return saved;
  });

  app.post(`${PREFIX}/download`, {
    config: officer, bodyLimit: SMALL_BODY_BYTES,
    schema: {
      tags: ['pods'], summary: 'A file as an attachment, up to 100 MB (413 above), streamed', params: PodParams, body: PathBody,
      produces: ['application/octet-stream'], response: { 200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'the file\'s bytes' }), ...Errors, ...FileErrors },
    },
  }, async (request, reply) => {
    const path = podPath(request.body.path, 'body.path');
    const login = await podLogin(request, request.params.pod_id);
    const { size, stream } = await answeringFileErrors(request.log, () => openPodDownload(login, path));
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-length', size)
      .header('content-disposition', attachment(baseName(path)))
      .header('cache-control', 'no-store')
      .send(stream);
  });

  app.post(`${PREFIX}/upload`, {
    config: officer,
    schema: {
      tags: ['pods'], consumes: ['multipart/form-data'],
      summary: 'Save a file into a folder (multipart: the field path, the folder, then one file; up to 100 MB, 413 above); a file of the same name is replaced',
      params: PodParams, response: { 200: SavedOut, ...Errors, 415: ErrorBody, ...FileErrors },
    },
  }, async (request) => {
    if (!request.isMultipart()) throw new HttpError(415, 'Send the file as multipart/form-data: the field path (the folder), then the file', 'not_multipart');
    const login = await podLogin(request, request.params.pod_id);
    let folder: string | null = null;
    let saved: { path: string; size: number } | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'path') folder = podPath(String(part.value), 'body.path');
          continue;
        }
        // The file streams straight to the pod, so where it goes must be known when it starts.
        if (folder === null) throw badRequest('body.path: send the field path (the folder) before the file', 'path_missing', { field: 'body.path' });
        const name = uploadName(part.filename);
        if (name === null) throw badRequest('The file has no usable name (a name of 1 to 255 bytes, not . or ..)', 'bad_file_name');
        const into = folder;
        saved = await onPod(request, login, TRANSFER_LIMIT_MS, async (s) => saveUpload(await s.sftp(), into, name, part.file));
      }
    } catch (err) {
      throw multipartError(err);
    }
    if (saved === null) throw badRequest(folder === null ? 'body.path: the field path (the folder) is missing' : 'No file: send one file after the field path', 'no_file');
    await request.audit(request.em, 'podhost.file_upload', { pod_id: request.params.pod_id, path: saved.path, size: saved.size });
    return saved;
  });

  app.post(`${PREFIX}/mkdir`, {
    config: officer, bodyLimit: SMALL_BODY_BYTES,
    schema: { tags: ['pods'], summary: 'Make a folder (its parent must exist; 409 when the path exists)', params: PodParams, body: PathBody, response: { 200: PathOut, ...Errors, ...FileErrors } },
  }, async (request) => {
    const path = podPath(request.body.path, 'body.path');
    const login = await podLogin(request, request.params.pod_id);
    const made = await onPod(request, login, FILE_OP_LIMIT_MS, async (s) => makeFolder(await s.sftp(), path));
    await request.audit(request.em, 'podhost.file_mkdir', { pod_id: request.params.pod_id, path });
    return made;
  });

  app.post(`${PREFIX}/rename`, {
    config: officer, bodyLimit: SMALL_BODY_BYTES,
    schema: { tags: ['pods'], summary: 'Move or rename (409 when new_path exists; /, /workspace, /root and /home stay where they are)', params: PodParams, body: RenameBody, response: { 200: RenameOut, ...Errors, ...FileErrors } },
  }, async (request) => {
    const from = podPath(request.body.old_path, 'body.old_path');
    const to = podPath(request.body.new_path, 'body.new_path');
    refuseProtected(from, 'body.old_path', 'moved');
    const login = await podLogin(request, request.params.pod_id);
    const moved = await onPod(request, login, FILE_OP_LIMIT_MS, async (s) => movePath(await s.sftp(), from, to));
    await request.audit(request.em, 'podhost.file_rename', { pod_id: request.params.pod_id, path: from, new_path: to });
    return moved;
  });

  app.post(`${PREFIX}/delete`, {
    config: officer, bodyLimit: SMALL_BODY_BYTES,
    schema: { tags: ['pods'], summary: 'Delete a file, or a folder and its contents (refuses /, /workspace, /root and /home)', params: PodParams, body: PathBody, response: { 200: DeleteOut, ...Errors, ...FileErrors } },
  }, async (request) => {
    const path = podPath(request.body.path, 'body.path');
    refuseProtected(path, 'body.path', 'deleted');
    const login = await podLogin(request, request.params.pod_id);
    const deleted = await onPod(request, login, DELETE_LIMIT_MS, async (s) => deletePath(await s.sftp(), path));
    await request.audit(request.em, 'podhost.file_delete', { pod_id: request.params.pod_id, path, deleted: deleted.deleted });
    return deleted;
  });
}) satisfies RoutesPlugin;

/** The multipart parser's refusals as answers (an HttpError passes as it is). */
function multipartError(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new HttpError(413, `The file is larger than ${sizeText(TRANSFER_MAX_BYTES)}`, 'file_too_large');
  if (code === 'FST_FILES_LIMIT') return badRequest('One file per upload', 'too_many_files');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_FIELD_SIZE_LIMIT') return badRequest('Send only the field path and one file', 'too_many_fields');
  return badRequest('The multipart body could not be read', 'bad_multipart'); // busboy's own errors carry no code
}
