// A reader thread (pool.ts starts it): for each request from the pool, one at a time, it loads the reader it needs,
// says it started (the deadline counts from here, not from the thread's start or a library's loading), reads
// (read.ts), and answers with plain data: an ExtractFailed does not survive a thread boundary as itself, so it goes
// back as its message.
import { parentPort } from 'node:worker_threads';
import { ExtractFailed } from './failed.js';
import { prepare, readRequest, type Extracted, type ReadRequest } from './read.js';

export type ReaderAnswer =
  | { ok: true; extracted: Extracted }
  /** `message` is for the officer (an ExtractFailed); `unexpected` is a bug's stack, for the log. */
  | { ok: false; message?: string; unexpected?: string };

export type ThreadMessage = { type: 'started' } | { type: 'done'; answer: ReaderAnswer };

async function answer(request: ReadRequest): Promise<ReaderAnswer> {
  try {
    return { ok: true, extracted: await readRequest(request) };
  } catch (err) {
    return err instanceof ExtractFailed ? { ok: false, message: err.message } : unexpected(err);
  }
}

const unexpected = (err: unknown): ReaderAnswer =>
  ({ ok: false, unexpected: err instanceof Error ? (err.stack ?? err.message) : String(err) });

const port = parentPort;
if (port) {
  port.on('message', async ({ request }: { request: ReadRequest }) => {
    const loaded = await prepare(request).then(() => null, (err: unknown) => err);
    port.postMessage({ type: 'started' } satisfies ThreadMessage);
    port.postMessage({ type: 'done', answer: loaded ? unexpected(loaded) : await answer(request) } satisfies ThreadMessage);
  });
}
