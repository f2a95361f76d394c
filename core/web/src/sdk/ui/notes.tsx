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

/** A query on its way. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return <p className="q-loading" role="status">{label}</p>;
}
