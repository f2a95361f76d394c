// What the CLI writes and how it exits. A command's result goes to stdout (so `$(quad token create …)` captures the
// token alone); errors, warnings and hints go to stderr. Exit codes: 0 done, 1 refused or failed, 2 a usage error
// (unknown command or flag, missing or bad argument), which commander has already reported with the usage.
import { CommanderError } from 'commander';
import { ConfigError } from '../config/load.js';
import { isDatabaseUnavailable } from '../db/outage.js';
import { HttpError, knownError } from '../http/errors.js';

/** The actor of every change a CLI command makes, in the audit log. */
export const CLI_ACTOR = 'cli';

/** What an action answers: its exit code, or `serving` when the process stays up (`quad run`) until a signal. */
export type Outcome = number | 'serving';

/** Wraps an action so the program learns its outcome (commander ignores what an action returns). */
export type Act = <A extends unknown[]>(fn: (...args: A) => Promise<Outcome>) => (...args: A) => Promise<void>;

/** A result line, on stdout. */
export function print(line: string) {
  process.stdout.write(`${line}\n`);
}

/** A warning, hint or question, on stderr. */
export function tell(line: string) {
  process.stderr.write(`${line}\n`);
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
  // A refusal the HTTP routes would answer 4xx (same messages), or Discord not answering. An unreachable database
  // is left whole below: the operator needs its address and cause, which the route's 503 hides.
  const known = isDatabaseUnavailable(err) ? null : knownError(err);
  if (known) {
    tell(`error: ${known.message}`);
    return 1;
  }
  if (err instanceof ConfigError || (err as Error | undefined)?.name === 'ManifestError') {
    tell((err as Error).message);
    return 1;
  }
  console.error(err);
  return 1;
}
