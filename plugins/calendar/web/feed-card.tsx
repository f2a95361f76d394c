// The org's subscription URL (GET/POST/DELETE /feed): whether one exists; Create (or New URL, which stops the old
// one) shows it once with Copy; Revoke asks first.
import { useState } from 'react';
import { Button, Card, ConfirmDialog, ErrorNote, apiFetch, apiUrl, useApi, useApiMutation } from '@quad/web/sdk';
import { useCalendarBase, useRefresh, type FeedStatus } from './common.js';

export function FeedCard() {
  const base = useCalendarBase();
  const refresh = useRefresh();
  const status = useApi<FeedStatus>(`${base}/feed`);
  const [shown, setShown] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [revoking, setRevoking] = useState(false);
  const revoke = useApiMutation('DELETE', `${base}/feed`, { invalidate: [`${base}/feed`] });
  const exists = status.data?.exists ?? false;

  async function make() {
    setError(null); setCopied(false);
    try {
      const made = await apiFetch<{ path: string }>(`${base}/feed`, { method: 'POST' });
      // The dashboard's API address, which subscribers reach too.
      setShown(new URL(apiUrl(made.path), window.location.href).toString());
      await refresh();
    } catch (err) {
      setError(err);
    }
  }

  async function copy() {
    await navigator.clipboard?.writeText(shown!).catch(() => undefined);
    setCopied(true);
  }

  return (
    <Card title="Subscription feed">
      <p>
        Calendar apps (Google Calendar, Apple Calendar, Outlook) subscribe to a secret URL and show the org's public events.
        {status.data && (exists ? ` A URL was made ${new Date(status.data.created_at!).toLocaleString()}; it is shown only when made.` : ' There is no URL yet.')}
      </p>
      {shown && (
        <div role="status" aria-label="New feed URL">
          <p>Copy it now: it is not shown again.</p>
          <code style={{ wordBreak: 'break-all' }} data-testid="feed-url">{shown}</code>{' '}
          <Button onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>
        </div>
      )}
      <span style={{ display: 'inline-flex', gap: 8 }}>
        <Button variant="primary" onClick={make}>{exists ? 'New URL' : 'Create feed URL'}</Button>
        {exists && <Button variant="danger" onClick={() => { revoke.reset(); setRevoking(true); }}>Revoke</Button>}
      </span>
      {exists && <p className="q-hint">New URL stops the old one: subscribers must subscribe again.</p>}
      {error !== null && <ErrorNote error={error} title="No URL made" />}
      <ConfirmDialog open={revoking} title="Revoke the feed URL?" confirmLabel="Revoke" danger busy={revoke.isPending} onCancel={() => setRevoking(false)}
        onConfirm={() => revoke.mutate(undefined, { onSuccess: () => { setRevoking(false); setShown(null); } })}>
        <p>Calendar apps subscribed to it stop getting the org's events.</p>
        {revoke.error && <ErrorNote error={revoke.error} title="Not revoked" />}
      </ConfirmDialog>
    </Card>
  );
}
