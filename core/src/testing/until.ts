// Waiting on a condition in a test: what a fault, another process or a job changes shows up a moment later.

/**
 * Until `check` gives something other than false, null or undefined; that value. The condition is what the test
 * waits for, not wall time: the deadline only turns a hang into a failure that names `what`.
 */
export async function until<T>(what: string, check: () => T | Promise<T>, opts: { timeoutMs?: number; everyMs?: number } = {}): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const value = await check();
    if (value !== false && value !== null && value !== undefined) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, opts.everyMs ?? 50));
  }
}
