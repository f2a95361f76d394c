// How SSH work on a pod fails. PodSshFailed: the connection itself (refused, key refused, lost, too slow): the routes
// answer 502. PodFileError: the pod's SFTP server (or a size or kind check) refused one operation on one path: the
// routes answer 4xx. Messages are short and name no address: they reach officers as they are.

export class PodSshFailed extends Error {
  override name = 'PodSshFailed';
  /** `timeout` when the time limit ran out; `host_key` when the host is not the pod (its host key is not the certified one); the rest are failures of the connection. */
  constructor(message: string, readonly kind: 'connect' | 'auth' | 'timeout' | 'lost' | 'host_key' = 'connect', options?: { cause?: unknown }) {
    super(message, options);
  }
}

export type PodFileProblem = 'not_found' | 'denied' | 'exists' | 'not_a_file' | 'not_a_folder' | 'too_large' | 'not_text' | 'failed';

export class PodFileError extends Error {
  override name = 'PodFileError';
  constructor(readonly problem: PodFileProblem, message: string) {
    super(message);
  }
}
