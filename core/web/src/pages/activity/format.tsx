// Small shared pieces of the Activity and Overview pages: times, query strings and status badges.
import type { ReactNode } from 'react';

/** A time as the officer's locale writes it, the exact ISO time on hover. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="q-muted">—</span>;
  return <time dateTime={at} title={at}>{new Date(at).toLocaleString()}</time>;
}

/** `?a=1&b=x` from the filters that are set (an empty string is unset); '' when none are. */
export function queryOf(filters: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const TONES: Record<string, string> = {
  open: 'warn', failed: 'bad', failure: 'bad', resolved: 'ok', succeeded: 'ok', success: 'ok', running: 'info', queued: 'info',
  in_progress: 'info', skipped: 'muted', cancelled: 'muted', revoked: 'bad', expired: 'muted', active: 'ok',
};

/** A state in words, with a color that repeats it (never the color alone). */
export function StatusBadge({ status, children }: { status: string; children?: ReactNode }) {
  return <span className={`q-status q-status-${TONES[status] ?? 'muted'}`}>{children ?? status.replace(/_/g, ' ')}</span>;
}

/** `1 notification`, `3 notifications`. */
export const plural = (n: number, noun: string) => `${n.toLocaleString('en')} ${noun}${n === 1 ? '' : 's'}`;
