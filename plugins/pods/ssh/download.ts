// A download from a pod streams through: the SFTP read stream goes straight into the answer, never held whole in
// memory (up to 100 MB). Its SSH session therefore outlives the route's handler: it closes when the stream closes
// (sent, failed, or the client went away), and the stream is cut when the transfer time limit runs out.
import type { Readable } from 'node:stream';
import { openPodSession, withinLimit, type PodLogin } from './client.js';
import { PodSshFailed } from './errors.js';
import { FILE_OP_LIMIT_MS, TRANSFER_LIMIT_MS, openDownload } from './files.js';

export interface PodDownload {
  /** Bytes the stream will carry (Content-Length). */
  size: number;
  stream: Readable;
}

export async function openPodDownload(login: PodLogin, path: string): Promise<PodDownload> {
  const session = await openPodSession(login);
  let download: PodDownload;
  try {
    download = await withinLimit(session.sftp().then((sftp) => openDownload(sftp, path)), FILE_OP_LIMIT_MS, () => session.destroy());
  } catch (err) {
    session.destroy();
    throw err;
  }
  const timer = setTimeout(() => {
    download.stream.destroy(new PodSshFailed(`The download took longer than ${TRANSFER_LIMIT_MS / 60_000} minutes`, 'timeout'));
  }, TRANSFER_LIMIT_MS);
  download.stream.once('close', () => {
    clearTimeout(timer);
    session.close();
  });
  return download;
}
