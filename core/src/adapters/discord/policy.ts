// What every Discord call shares, whichever transport sends it (@discordjs/rest for the bot and webhooks, fetch for
// OAuth): the User-Agent, how long a rate limit may hold a caller, how a 429's wait and an error body are read, and
// that no secret ever reaches an error message.

export type Json = Record<string, unknown>;

/** Discord asks every client to name itself (`DiscordBot ($url, $version)`). */
export const USER_AGENT = 'DiscordBot (quad, 0.1)';
export const DEFAULT_TIMEOUT_MS = 5000;
/** A rate limit asking for a longer wait than this is reported as unavailable instead of holding the caller. */
export const MAX_RETRY_WAIT_S = 2;

/** Seconds a 429 asks us to wait: `retry_after` in the JSON body (fractional), else the Retry-After header. */
export function retryAfterOf(text: string, headers: Headers): number | undefined {
  let seconds: number | undefined;
  try {
    const v = (JSON.parse(text) as Json)?.retry_after;
    if (typeof v === 'number') seconds = v;
  } catch {
    // fall back to the header
  }
  if (seconds === undefined) {
    const h = Number(headers.get('retry-after'));
    if (headers.has('retry-after') && Number.isFinite(h)) seconds = h;
  }
  return seconds === undefined || !Number.isFinite(seconds) ? undefined : Math.max(0, seconds);
}

/** Discord's error body: `{message, code}` for the API, `{error, error_description}` for OAuth. */
export function discordErrorOf(body: unknown): { message?: string; code?: number } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const o = body as Json;
  const message = typeof o.message === 'string' ? o.message : typeof o.error === 'string' ? o.error : undefined;
  return { message: message?.slice(0, 200), code: typeof o.code === 'number' ? o.code : undefined };
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function redact(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

/** A failed request in a few words: the timeout, or only the low-level code (undici's messages can quote the URL, which may hold a webhook token). */
export function describeNetworkError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timed out after ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}
