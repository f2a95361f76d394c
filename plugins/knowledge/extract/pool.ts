// The reader threads: every document and page is read (worker.ts, read.ts) in a small pool of worker threads rather
// than in the thread that serves requests and runs jobs, so a file that is slow, large or made to hurt fails alone
// with a message the officer sees, and the process, other requests and other files go on. Limits:
// - a deadline per document, counted from when its thread starts on it: the thread is ended at the deadline;
// - the thread's JavaScript heap (resourceLimits): a thread over it is ended by Node;
// - the process's resident memory while documents are read: buffers (an inflated PDF stream) live outside the heap
//   and its cap, so a watchdog here ends the threads when the process grew by more than memoryMb a document;
// - few threads (1 on 2 cores, else 2), and a bounded wait: a document past it is refused, not queued.
// Threads start on the first read, are unreferenced while idle (an app that closed, a test that read once, is not
// kept alive) and end after idleMs. Node's worker_threads directly rather than a pool library: piscina loads its task
// file with require() first, which under tsx compiles the readers as CommonJS, where their lazy import()s of their
// libraries fail; and the deadline must count from the thread's start on a document, which the thread says here.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ExtractFailed } from './failed.js';
import type { Extracted, ReadRequest } from './read.js';
import type { ReaderAnswer, ThreadMessage } from './worker.js';

/** What the officer is told failed: an uploaded `file` or a crawled `page`. */
export type Subject = 'file' | 'page';

export interface ReaderLimits {
  /** How long one document may take, from when its thread starts on it. Default: 30 000 ms. */
  deadlineMs: number;
  /** The JavaScript heap of a reader thread (Worker resourceLimits.maxOldGenerationSizeMb). Default: 256. */
  heapMb: number;
  /** How far the process's resident memory may grow per document being read (heap and buffers). Default: 512. */
  memoryMb: number;
  /** Reader threads. Default: 1 on a machine of 2 cores or fewer, else 2. */
  threads: number;
  /** Documents that may wait for a thread; one more fails at once. Default: 32. */
  maxWaiting: number;
  /** How long an idle thread stays before it ends. Default: 30 000 ms. */
  idleMs: number;
}

export const READER_LIMITS: Readonly<ReaderLimits> = Object.freeze({
  deadlineMs: 30_000,
  heapMb: 256,
  memoryMb: 512,
  threads: Math.min(2, Math.max(1, availableParallelism() - 1)),
  maxWaiting: 32,
  idleMs: 30_000,
});

/** A thread may take this long to start (load its readers) before its document's deadline starts counting. */
const START_MS = 15_000;
const WATCH_EVERY_MS = 100;
const MB = 1024 * 1024;

let limits: ReaderLimits = { ...READER_LIMITS };
const threads = new Set<ReaderThread>();

/** Changes the limits (tests: a short deadline, a small heap); the threads of the old limits end first. */
export async function configureReaders(changes: Partial<ReaderLimits>): Promise<void> {
  await closeReaders();
  limits = { ...limits, ...changes };
}

/** Ends the reader threads (a read in progress fails); the next read starts new ones. */
export async function closeReaders(): Promise<void> {
  await Promise.all([...threads].map((thread) => thread.end()));
}

/** Reads `request` in a reader thread, `transfer` handed over to it; an ExtractFailed when a limit is passed. */
export async function readInThread(request: ReadRequest, transfer: ArrayBuffer[], subject: Subject): Promise<Extracted> {
  await acquire();
  try {
    const answer = await run(request, transfer, subject);
    if (answer.ok) return answer.extracted;
    if (answer.message !== undefined) throw new ExtractFailed(answer.message);
    throw new Error(`A document reader failed: ${answer.unexpected}`);
  } finally {
    release();
  }
}

// The bounded wait: at most `threads` documents are read at once, each on a thread of its own.
let running = 0;
const waiting: Array<() => void> = [];

async function acquire(): Promise<void> {
  if (running < limits.threads) {
    running++;
    return;
  }
  if (waiting.length >= limits.maxWaiting) throw new ExtractFailed('Too many documents are being read right now: try again in a few minutes');
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

/** The document read on an idle thread (or a new one), stopped at the deadline or the memory cap. */
function run(request: ReadRequest, transfer: ArrayBuffer[], subject: Subject): Promise<ReaderAnswer> {
  const thread = [...threads].find((t) => t.idle) ?? new ReaderThread();
  const { deadlineMs } = limits;
  return new Promise<ReaderAnswer>((resolve, reject) => {
    let timer = setTimeout(() => stop('deadline'), START_MS + deadlineMs);
    const reading: Reading = { baseline: 0, stop: () => stop('memory') };
    const settle = (result: ReaderAnswer | Error) => {
      clearTimeout(timer);
      unwatch(reading);
      if (result instanceof Error) reject(failure(result, subject));
      else resolve(result);
    };
    function stop(why: 'deadline' | 'memory') {
      thread.abandon();
      settle(new ExtractFailed(why === 'deadline'
        ? `The ${subject} took too long to read (more than ${Math.round(deadlineMs / 1000)} s)`
        : `The ${subject} needs more memory than a document may use`));
    }
    const started = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stop('deadline'), deadlineMs);
      watch(reading);
    };
    try {
      thread.read(request, transfer, { started, settle });
    } catch (err) {
      // A request that cannot be posted (never expected: it is plain data): the thread is fine, the read is not.
      settle(err as Error);
    }
  });
}

/** An ExtractFailed for a thread Node ended over its heap; any other failure of the thread as it is (logged). */
function failure(err: Error, subject: Subject): Error {
  if (err instanceof ExtractFailed) return err;
  if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new ExtractFailed(`The ${subject} needs more memory than a document may use`);
  }
  return new Error('A document reader thread failed', { cause: err });
}

interface Task {
  started(): void;
  settle(result: ReaderAnswer | Error): void;
}

// Under tsx (this file is TypeScript) a thread registers tsx's loader itself rather than rely on the process's
// module hooks reaching it. Compiled, the thread runs worker.js as it is.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const BOOT = `import('node:worker_threads').then(async ({ workerData }) => {
  (await import(workerData.tsx)).register();
  await import(workerData.entry);
});`;

/** One reader thread: a document at a time; unreferenced and ending after idleMs while it has none. */
class ReaderThread {
  private readonly worker: Worker;
  private task: Task | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private ended = false;

  constructor() {
    const resourceLimits = { maxOldGenerationSizeMb: limits.heapMb };
    // The process's options but --input-type, which is for -e code and makes a thread refuse its file.
    const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
    const entry = new URL(FROM_SOURCE ? './worker.ts' : './worker.js', import.meta.url);
    this.worker = FROM_SOURCE
      ? new Worker(BOOT, { eval: true, workerData: { tsx: import.meta.resolve('tsx/esm/api'), entry: entry.href }, resourceLimits, execArgv })
      : new Worker(entry, { resourceLimits, execArgv });
    threads.add(this);
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'started') this.task?.started();
      else this.finish(message.answer);
    });
    // An uncaught failure or the heap limit ('error', then 'exit'), or an exit on its own: the thread is gone.
    this.worker.on('error', (err) => this.gone(err));
    this.worker.on('exit', (code) => this.gone(new Error(`The reader thread exited with code ${code}`)));
  }

  get idle(): boolean {
    return this.task === null && !this.ended;
  }

  read(request: ReadRequest, transfer: ArrayBuffer[], task: Task): void {
    this.worker.postMessage({ request }, transfer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.task = task;
    this.worker.ref();
  }

  /** Ends the thread mid-document (the caller settles the document). */
  abandon(): void {
    this.task = null;
    void this.end();
  }

  async end(): Promise<void> {
    this.ended = true;
    threads.delete(this);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.worker.terminate();
  }

  private finish(answer: ReaderAnswer): void {
    if (this.ended) return; // abandoned: its answer came too late
    const task = this.task;
    this.task = null;
    this.worker.unref();
    this.idleTimer = setTimeout(() => void this.end(), limits.idleMs).unref();
    task?.settle(answer);
  }

  private gone(err: Error): void {
    const task = this.task;
    this.task = null;
    this.ended = true;
    threads.delete(this);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    task?.settle(err);
  }
}

// The memory watchdog: while documents are read, the process's resident memory is checked every WATCH_EVERY_MS
// against the lowest baseline plus memoryMb for each document; past it, every read in progress is stopped (which
// of them grew is not known from here).
interface Reading {
  /** The process's lowest resident memory since the thread started on the document. */
  baseline: number;
  stop(): void;
}

const readings = new Set<Reading>();
let watchdog: NodeJS.Timeout | null = null;

function watch(reading: Reading): void {
  reading.baseline = process.memoryUsage.rss();
  readings.add(reading);
  watchdog ??= setInterval(checkMemory, WATCH_EVERY_MS).unref();
}

function unwatch(reading: Reading): void {
  readings.delete(reading);
  if (readings.size === 0 && watchdog) {
    clearInterval(watchdog);
    watchdog = null;
  }
}

function checkMemory(): void {
  const rss = process.memoryUsage.rss();
  let baseline = Infinity;
  // A baseline follows the resident memory down: what an earlier document left (a thread just ended, its memory
  // still being returned) must not hide this document's growth once it is freed.
  for (const r of readings) baseline = Math.min(baseline, r.baseline = Math.min(r.baseline, rss));
  if (rss - baseline > limits.memoryMb * MB * readings.size) for (const r of [...readings]) r.stop();
}
