// What the CLI writes and how it exits. A command's result goes to stdout (so `$(quad token create …)` captures the
// token alone); errors, warnings and hints go to stderr. Exit codes: 0 done, 1 refused or failed, 2 a usage error
// (unknown command or flag, missing or bad argument), which commander has already reported with the usage.
import { inspect } from 'node:util';
import { CommanderError } from 'commander';
import { ConfigError } from '../config/load.js';
import { isDatabaseUnavailable } from '../db/outage.js';
import { HttpError, knownError } from '../http/errors.js';
import { cliIo } from './io.js';

/**
 * A failure the operator fixes (a database that cannot be reached or does not exist, a refused user), worded as
 * `npm start` words it (startup/operator-errors.ts): printed as one `error:` line, never with a stack.
 */
export class OperatorError extends Error {
  override name = 'OperatorError';
}

/** The actor of every change a CLI command makes, in the audit log. */
export const CLI_ACTOR = 'cli';

/** What an action answers: its exit code, or `serving` when the process stays up (`quad run`) until a signal. */
export type Outcome = number | 'serving';

/** Wraps an action so the program learns its outcome (commander ignores what an action returns). */
export type Act = <A extends unknown[]>(fn: (...args: A) => Promise<Outcome>) => (...args: A) => Promise<void>;

/** A result line, on stdout. */
export function print(line: string) {
  cliIo().stdout.write(`${line}\n`);
}

/** A warning, hint or question, on stderr. */
export function tell(line: string) {
  cliIo().stderr.write(`${line}\n`);
}

/** The `reason` of a refusal (an HttpError's, as the routes answer it), if any. */
export function reasonOf(err: unknown): string | undefined {
  return err instanceof HttpError ? err.reason : undefined;
}

/** Report an error the command caught, then a hint that gets past it; answers the exit code. */
export function failure(err: unknown, hint: string): number {
  const code = exitCodeFor(err);
  tell(hint);
  return code;
}

/** Report a command that threw in one line (never a stack for an error we expect) and answer its exit code. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  if (err instanceof OperatorError) {
    tell(`error: ${err.message}`);
    return 1;
  }
  // A refusal the HTTP routes would answer 4xx (same messages), or Discord not answering. A database outage is not
  // worded as the route's 503, which hides the address and cause the operator needs: the database commands turn it
  // into an OperatorError (cli/database.ts), and anything else about it is printed whole below.
  const known = isDatabaseUnavailable(err) ? null : knownError(err);
  if (known) {
    tell(`error: ${known.message}`);
    return 1;
  }
  // By name: importing their modules would load the core for every `--help`.
  const name = (err as Error | undefined)?.name;
  if (err instanceof ConfigError || name === 'ManifestError' || name === 'EmbeddedPostgresError') {
    tell((err as Error).message);
    return 1;
  }
  tell(inspect(err)); // as console.error prints it: with its stack
  return 1;
}
