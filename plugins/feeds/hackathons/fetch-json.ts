// One request of a source with a deadline that covers the body too (a server can send headers and then stall),
// and the two ways an answer is not usable: a status other than 2xx, and a body that is not JSON. A source made of
// files (Hackalist: one per month) may ask for a 404 to mean "no such file yet": `missing` is answered then.
import type { Fetcher } from './event.js';
import { HackathonSourceError } from './source-error.js';

/** What fetchJson answers for a 404 when the caller passes `{ notFound: MISSING }`. */
export const MISSING = Symbol('missing');

export async function fetchJson(fetch: Fetcher, url: string, init: RequestInit, timeoutMs: number, options: { notFound?: typeof MISSING } = {}): Promise<unknown> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The race is kept even though the signal is passed: a fetcher that ignores signals must not hang a feed run.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new HackathonSourceError(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const exchange = (async () => {
    const response = await fetch(url, { ...init, signal: abort.signal });
    if (response.status === 404 && options.notFound) {
      await response.body?.cancel();
      return options.notFound;
    }
    if (!response.ok) throw new HackathonSourceError(`answered HTTP ${response.status}`);
    const body = await response.text();
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw new HackathonSourceError('answer is not JSON');
    }
  })();
  exchange.catch(() => {}); // once the deadline won, the aborted exchange's rejection has no listener
  try {
    return await Promise.race([exchange, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
