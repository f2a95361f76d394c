// The real error of a transaction that died under its first statement. knex swallows a failure of BEGIN (or of any
// statement of a transaction) into the transaction's own promise and marks it complete; every later statement of the
// transaction then fails with "Transaction query already complete", which says nothing of why. When the database
// went away under BEGIN (a restart, a cut connection), that message would read as a bug (500) instead of an outage
// (503): the transaction's promise holds the error that ended it, so that one is thrown instead.
import type { Knex } from '@mikro-orm/knex';

const COMPLETED = 'Transaction query already complete';

/** The error that ended `ctx`'s transaction, when `err` only says it had ended; otherwise `err`. */
export async function transactionCause(err: unknown, ctx: unknown): Promise<unknown> {
  if (!(err instanceof Error) || !err.message.includes(COMPLETED)) return err;
  const settled = (ctx as Partial<Knex.Transaction> | undefined)?.executionPromise;
  if (!settled) return err;
  // A transaction ended by an error has rejected its promise already (in the same tick as it was marked complete);
  // one ended by COMMIT or ROLLBACK resolved it: then `err` is ours to report.
  const cause = await Promise.race([settled.then(() => null, (reason: unknown) => reason), new Promise((resolve) => setImmediate(resolve, null))]);
  return cause ?? err;
}
