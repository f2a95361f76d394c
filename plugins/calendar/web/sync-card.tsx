// Discord scheduled events (GET/PUT /settings, POST /sync): the switch, Sync now (202; 409 says a sync is already
// queued or running) and the last sync's outcome.
import { useState } from 'react';
import { Button, Card, ErrorNote, apiFetch, useApi } from '@quad/web/sdk';
import { useCalendarBase, useRefresh, type Settings } from './common.js';

export function SyncCard() {
  const base = useCalendarBase();
  const refresh = useRefresh();
  const settings = useApi<Settings>(`${base}/settings`);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const s = settings.data;

  async function act(what: () => Promise<unknown>, done: string) {
    setError(null); setNote(null);
    try {
      await what();
      setNote(done);
      await refresh();
    } catch (err) {
      setError(err);
    }
  }

  if (!s) return <Card title="Discord events">{settings.error ? <ErrorNote error={settings.error} title="Settings not loaded" /> : null}</Card>;
  return (
    <Card title="Discord events">
      <p>Copy the Discord server's scheduled events into the calendar every 30 minutes. They are changed in Discord; turning this off removes the copies.</p>
      {!s.discord_bound && <p className="q-note">The org has no Discord server bound.</p>}
      <p><label className="q-switch">
        <input type="checkbox" checked={s.discord_sync} disabled={!s.discord_bound}
          onChange={(e) => act(() => apiFetch(`${base}/settings`, { method: 'PUT', body: { discord_sync: e.target.checked } }), e.target.checked ? 'Discord sync is on.' : 'Discord sync is off.')} />
        {' '}Sync Discord scheduled events
      </label></p>
      {s.discord_sync && (
        <Button onClick={() => act(() => apiFetch(`${base}/sync`, { method: 'POST' }), 'Sync started: the events show here when it ends.')}>Sync now</Button>
      )}
      {s.last_sync && (
        <p className="q-hint" data-testid="last-sync">
          Last sync {new Date(s.last_sync.at).toLocaleString()}: {s.last_sync.error ? `failed: ${s.last_sync.error}` : `${s.last_sync.changes ?? 0} changes`}
        </p>
      )}
      {note && <p role="status">{note}</p>}
      {error !== null && <ErrorNote error={error} title="Not done" />}
    </Card>
  );
}
