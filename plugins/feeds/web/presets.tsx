// Presets of the page's kind (GET /presets: feeds offered by the submodules the org subscribes to), one card each:
// added in one click once the officer gives the channel's webhook URL (PUT /feeds/<preset key> with its config);
// a preset the org already has a feed of says Added.
import { useState, type FormEvent } from 'react';
import { Button, Card, ErrorNote, Field, apiFetch, useApi } from '@quad/web/sdk';
import { feedPath, useFeedsBase, useRefresh, type Kind, type Preset } from './common.js';

export function Presets({ kind }: { kind: Kind }) {
  const base = useFeedsBase();
  const presets = useApi<{ presets: Preset[] }>(`${base}/presets`);
  const mine = (presets.data?.presets ?? []).filter((p) => p.kind === kind);
  if (presets.error) return <ErrorNote error={presets.error} title="Presets not loaded" />;
  if (mine.length === 0) return null;
  return (
    <section aria-label="Presets" style={{ marginBottom: 16 }}>
      <h2 className="q-section-title">Presets</h2>
      <p className="q-hint">Ready-made feeds from the submodules the org subscribes to: add one with its channel's webhook URL.</p>
      <div className="q-card-grid">{mine.map((p) => <PresetCard key={p.key} preset={p} />)}</div>
    </section>
  );
}

function PresetCard({ preset }: { preset: Preset }) {
  const base = useFeedsBase();
  const refresh = useRefresh();
  const [webhook, setWebhook] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function add(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null);
    try {
      await apiFetch(feedPath(base, preset.key), { method: 'PUT', body: { kind: preset.kind, webhook_url: webhook.trim(), config: preset.config } });
      setWebhook('');
      await refresh();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title={preset.title} actions={preset.added && <span className="q-badge q-badge-on">Added</span>}>
      <p>{preset.description}</p>
      <p className="q-hint">From {preset.module}; feed key <code>{preset.key}</code></p>
      {!preset.added && (
        <form onSubmit={add} aria-label={`Add ${preset.title}`} className="q-inline-form">
          <Field label="Discord webhook URL" type="url" value={webhook} onChange={(e) => setWebhook(e.target.value)} required maxLength={512}
            autoComplete="off" placeholder="https://discord.com/api/webhooks/…" />
          <Button type="submit" variant="primary" disabled={busy}>Add</Button>
        </form>
      )}
      {error !== null && <ErrorNote error={error} title={`${preset.title} not added`} />}
    </Card>
  );
}
