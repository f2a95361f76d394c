import { ApiError } from '../api.js';

/** A query's failure, in words. */
export function ErrorNote({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message = error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);
  return (
    <div className="q-note q-note-error" role="alert">
      <strong>{title}.</strong> {message}
    </div>
  );
}

/**
 * What became of a form's last save: the failure (`failedTitle`, e.g. "Not saved") or the `saved` sentence, in the
 * ok colour, for screen readers too. Nothing before the first save.
 */
export function SaveOutcome({ error, saved, failedTitle }: { error: unknown; saved: string | null | false; failedTitle: string }) {
  if (error !== null && error !== undefined) return <ErrorNote error={error} title={failedTitle} />;
  return saved ? <p role="status" style={{ color: 'var(--ok)' }}>{saved}</p> : null;
}

/** A query on its way. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return <p className="q-loading" role="status">{label}</p>;
}
