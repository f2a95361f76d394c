// The org's settings (PUT /settings): the Discord channel, the UTC hour, points per solve, enabled.
import { useEffect, useState, type FormEvent } from 'react';
import { Button, Card, ErrorNote, Field, Loading, SaveOutcome, apiFetch, useApi } from '@quad/web/sdk';
import { useBase, useRefresh, type Settings } from './common.js';

export function SettingsForm() {
  const base = useBase();
  const refresh = useRefresh();
  const current = useApi<Settings>(`${base}/settings`);
  const [channel, setChannel] = useState('');
  const [hour, setHour] = useState('14');
  const [points, setPoints] = useState('10');
  const [enabled, setEnabled] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!current.data) return;
    setChannel(current.data.channel_id ?? '');
    setHour(String(current.data.post_hour_utc));
    setPoints(String(current.data.points_per_solve));
    setEnabled(current.data.enabled);
  }, [current.data]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setSaved(false);
    try {
      await apiFetch(`${base}/settings`, {
        method: 'PUT', body: { channel_id: channel.trim() || null, post_hour_utc: Number(hour), points_per_solve: Number(points), enabled },
      });
      await refresh();
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  if (current.isPending) return <Card title="Settings"><Loading /></Card>;
  if (current.error) return <Card title="Settings"><ErrorNote error={current.error} title="Settings not loaded" /></Card>;
  return (
    <Card title="Settings">
      <form onSubmit={submit} aria-label="LeetCode settings">
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
          <Field label="Channel ID" value={channel} onChange={(e) => setChannel(e.target.value)} pattern="[0-9]{17,20}" maxLength={20}
            hint="The Discord channel the daily problem goes to (Developer Mode → Copy Channel ID); empty posts nothing" />
          <Field label="Post hour (UTC)" type="number" min={0} max={23} step={1} required value={hour} onChange={(e) => setHour(e.target.value)} hint="0–23; default 14" />
          <Field label="Points per solve" type="number" min={0} max={1000} step={1} required value={points} onChange={(e) => setPoints(e.target.value)}
            hint={current.data.points_enabled ? '0–1000; default 10' : 'The points module is off: solves earn no points'} />
        </div>
        <p><label className="q-switch">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Post the daily problem every day
        </label></p>
        <Button type="submit" variant="primary" disabled={busy}>Save settings</Button>
      </form>
      <SaveOutcome error={error} saved={saved && 'Settings saved.'} failedTitle="Not saved" />
    </Card>
  );
}
