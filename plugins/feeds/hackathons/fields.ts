// Readers for the fields of one item of a source's answer. Each returns null for a value it cannot use, so an
// adapter can skip (and count) a malformed item instead of throwing.

export type Item = Record<string, unknown>;

export function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string with whitespace collapsed, or null. */
export function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const clean = value.replace(/\s+/g, ' ').trim();
  return clean === '' ? null : clean;
}

/** An absolute http(s) URL, or null: links end up in chat posts, so nothing else is passed on. */
export function httpUrl(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** An ISO 8601 timestamp with a date part (the sources send UTC, "Z" or "+00:00"), or null. */
export function isoDate(value: unknown): Date | null {
  const raw = text(value);
  if (!raw || !/^\d{4}-\d{2}-\d{2}/.test(raw)) return null;
  const date = new Date(raw);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The parts that are set, joined with ", " ("Boston, MA, US"); null when none is. */
export function place(...parts: unknown[]): string | null {
  const set = parts.map(text).filter((part): part is string => part !== null);
  return set.length ? set.join(', ') : null;
}

/** An end before the start is a typo in the listing; the event keeps its start and loses the end. */
export function endAfter(start: Date, end: Date | null): Date | null {
  return end && end.getTime() >= start.getTime() ? end : null;
}
