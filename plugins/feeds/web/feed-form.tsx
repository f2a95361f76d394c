// Add a feed of the page's kind, or change the one being edited (PUT /feeds/<key>): key, the Discord webhook URL
// (write-only: an edit shows only whether one is set and takes a new one, a blank field keeps it), every_hours,
// enabled and the kind's config fields with their defaults. The server checks everything; its error names the field.
import { useState, type FormEvent } from 'react';
import { Button, Card, Field, SaveOutcome, apiFetch } from '@quad/web/sdk';
import { EVERY_HOURS, KINDS, SOURCES, configOf, draftOf, errorField, feedPath, row, useFeedsBase, useRefresh, type Draft, type Feed, type Kind } from './common.js';

export function FeedForm({ kind, feed, onDone }: { kind: Kind; feed: Feed | null; onDone: () => void }) {
  const base = useFeedsBase();
  const refresh = useRefresh();
  const info = KINDS[kind];
  const [key, setKey] = useState(feed?.key ?? '');
  const [webhook, setWebhook] = useState('');
  const [every, setEvery] = useState(String(feed?.every_hours ?? EVERY_HOURS.default));
  const [enabled, setEnabled] = useState(feed?.enabled ?? true);
  const [draft, setDraft] = useState<Draft>(() => draftOf(kind, feed?.config));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const invalid = (field: string) => (errorField(error) === field ? true : undefined);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setSaved(null);
    const name = feed?.key ?? key.trim();
    try {
      const body = {
        kind, every_hours: Number(every), enabled, config: configOf(kind, draft),
        ...(webhook.trim() && { webhook_url: webhook.trim() }),
      };
      await apiFetch(feedPath(base, name), { method: 'PUT', body });
      await refresh();
      if (feed) {
        onDone();
      } else {
        setSaved(`Added ${name}: it runs every ${body.every_hours} h; Run now starts it at once.`);
        setKey(''); setWebhook(''); setEvery(String(EVERY_HOURS.default)); setEnabled(true); setDraft(draftOf(kind));
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const title = feed ? `Edit ${feed.key}` : `Add a ${info.noun}`;
  return (
    <Card title={title}>
      <form onSubmit={submit} aria-label={title}>
        <div style={row}>
          {feed ? <p><strong>Key</strong> <code>{feed.key}</code></p> : (
            <Field label="Key" value={key} onChange={(e) => setKey(e.target.value)} required maxLength={40} aria-invalid={invalid('key')}
              hint="Lowercase letters, digits and dashes (internships)" />
          )}
          <Field label="Every (hours)" type="number" min={EVERY_HOURS.min} max={EVERY_HOURS.max} step={1} required value={every}
            onChange={(e) => setEvery(e.target.value)} aria-invalid={invalid('every_hours')} hint={`${EVERY_HOURS.min}–${EVERY_HOURS.max}; default ${EVERY_HOURS.default}`} />
        </div>
        {feed && <p role="status">Webhook URL: {feed.webhook_set ? 'set (never shown)' : 'not set'}</p>}
        <Field label={feed ? 'New Discord webhook URL' : 'Discord webhook URL'} type="url" value={webhook} onChange={(e) => setWebhook(e.target.value)}
          required={!feed} maxLength={512} autoComplete="off" placeholder="https://discord.com/api/webhooks/…" aria-invalid={invalid('webhook_url')}
          hint={feed ? 'Replaces the stored one; leave blank to keep it' : 'Stored encrypted and never shown again'} />
        <div style={row}>
          {info.fields.filter((f) => f.type === 'text' || f.type === 'number').map((f) => (
            <Field key={f.name} label={f.label} type={f.type} value={draft[f.name] as string} required={f.required} placeholder={f.placeholder}
              min={f.min} max={f.max} step={f.type === 'number' ? 1 : undefined} hint={f.hint ?? (f.default !== '' ? `Default ${String(f.default)}` : undefined)}
              aria-invalid={invalid(f.name)} onChange={(e) => setDraft({ ...draft, [f.name]: e.target.value })} />
          ))}
        </div>
        {info.fields.filter((f) => f.type === 'sources').map((f) => (
          <fieldset key={f.name} className="q-field" style={{ border: 0, padding: 0, margin: '0 0 12px' }}>
            <legend className="q-label">{f.label}</legend>
            {SOURCES.map(([id, service]) => {
              const chosen = draft[f.name] as string[];
              return (
                <label key={id} className="q-switch" style={{ marginRight: 16 }}>
                  <input type="checkbox" checked={chosen.includes(id)}
                    onChange={() => setDraft({ ...draft, [f.name]: chosen.includes(id) ? chosen.filter((s) => s !== id) : [...chosen, id] })} />
                  {service}
                </label>
              );
            })}
          </fieldset>
        ))}
        {info.fields.filter((f) => f.type === 'flag').map((f) => (
          <p key={f.name}><label className="q-switch">
            <input type="checkbox" checked={draft[f.name] as boolean} onChange={(e) => setDraft({ ...draft, [f.name]: e.target.checked })} /> {f.label}
          </label></p>
        ))}
        <p><label className="q-switch">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled (off pauses the schedule; Run now still works)
        </label></p>
        <span style={{ display: 'inline-flex', gap: 8 }}>
          <Button type="submit" variant="primary" disabled={busy}>{feed ? 'Save' : 'Add feed'}</Button>
          {feed && <Button onClick={onDone}>Cancel</Button>}
        </span>
      </form>
      <SaveOutcome error={error} saved={saved} failedTitle={feed ? 'Not saved' : 'Not added'} />
    </Card>
  );
}
