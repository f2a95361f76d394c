// Why one source could not be read, in a few words fit for a feed's last_error: a status, "not JSON", a timeout.
// Never a stack, a URL or a header: base URLs are settings and a run record is shown to officers.

export class HackathonSourceError extends Error {
  override name = 'HackathonSourceError';
}

/** A short message for any failure of a read; unexpected errors become their class name only. */
export function shortFailure(error: unknown): string {
  if (error instanceof HackathonSourceError) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  // The core's safe fetcher says why in one word (`refused`, `timeout`, `too_large`, `network`…); its message names
  // the host, which the listing id already identifies.
  const reason = (error as { reason?: unknown } | null)?.reason;
  if (error instanceof Error && typeof reason === 'string' && /^[a-z_]+$/.test(reason)) return `request failed (${reason})`;
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return `request failed (${code})`;
  if (error instanceof TypeError) return 'request failed';
  return error instanceof Error ? `failed (${error.name})` : 'failed';
}
