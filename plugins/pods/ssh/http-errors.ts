// SSH and SFTP failures as the file routes answer them (spec "Errors"): the connection failing is 502 (`ssh_failed`;
// `host_key_mismatch` when the host at the pod's address is not the pod), a refused operation on a path its 4xx. The
// cause of a 502 (which names the pod's address) goes to the log, not the answer.
import { HttpError } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { PodFileError, PodSshFailed, type PodFileProblem } from './errors.js';

const ANSWERS: Record<PodFileProblem, [status: number, reason: string]> = {
  not_found: [404, 'path_not_found'],
  denied: [403, 'permission_denied'],
  exists: [409, 'path_exists'],
  not_a_file: [400, 'not_a_file'],
  not_a_folder: [400, 'not_a_folder'],
  too_large: [413, 'file_too_large'],
  not_text: [400, 'not_text'],
  failed: [409, 'file_operation_failed'],
};

/** The HttpError for an SSH or SFTP failure; any other error as it is. */
export function podFileError(err: unknown, log: FastifyBaseLogger): unknown {
  if (err instanceof PodSshFailed) {
    log.warn({ err: err.cause ?? err }, 'podhost: SSH to a pod failed');
    return new HttpError(502, `SSH to the pod failed: ${err.message}`, err.kind === 'host_key' ? 'host_key_mismatch' : 'ssh_failed');
  }
  if (err instanceof PodFileError) {
    const [status, reason] = ANSWERS[err.problem];
    return new HttpError(status, err.message, reason);
  }
  return err;
}

/** Runs a file route's SSH work; its failures become the spec's answers. */
export async function answeringFileErrors<T>(log: FastifyBaseLogger, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw podFileError(err, log);
  }
}
