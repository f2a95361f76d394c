// Where a `quad` command reads and writes: its environment, stdin, stdout and stderr. A `quad` process uses its
// own (cli.ts); runQuad (main.ts) runs the same program on others, so that a caller such as the suite runs commands
// without a process each, and several at once (the streams belong to the call's async context).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  env: Record<string, string | undefined>;
  /** A terminal (isTTY) is asked before a destructive command; anything else must pass --yes. */
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
}

/** The process's own, each stream read only when used (process.stdin opens the terminal or pipe when first read). */
const PROCESS_IO: CliIo = {
  get env() { return process.env; },
  get stdin() { return process.stdin; },
  get stdout() { return process.stdout; },
  get stderr() { return process.stderr; },
};

const current = new AsyncLocalStorage<CliIo>();

/** The streams and environment of the command running in this async context (the process's by default). */
export const cliIo = (): CliIo => current.getStore() ?? PROCESS_IO;

/** Runs `fn` with `io` as every command's streams and environment. */
export const withCliIo = <T>(io: CliIo, fn: () => Promise<T>): Promise<T> => current.run(io, fn);
