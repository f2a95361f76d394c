// The Settings tab: the org knowledge settings (README "Settings"), each with its range and default, Save (only the
// changed fields), Reset to default per field (null), the API's error at its field.
import { useEffect, useState, type CSSProperties, type FormEvent } from 'react';
import { ApiError, Button, Card, ErrorNote, Field, Loading, useApi, useApiMutation, useOrg } from '@quad/web/sdk';
import { MODES, errorField, ok } from './common.js';

const SETTINGS = ['chunk_chars', 'chunk_overlap', 'mode', 'top_k', 'window', 'max_distance', 'rrf_k'] as const;
type Setting = (typeof SETTINGS)[number];
type Values = Record<Setting, number | string>;
interface SettingsAnswer { settings: Values; defaults: Values; embedder: { model: string } | null }

/** The spec's table ("Org knowledge settings"): what each setting means and its range. */
const RANGES: Record<Setting, { label: string; range: string; min?: number; max?: number; step?: number }> = {
  chunk_chars: { label: 'Passage size (characters)', range: '100–4000', min: 100, max: 4000, step: 1 },
  chunk_overlap: { label: 'Passage overlap (characters)', range: '0–half of the passage size', min: 0, max: 2000, step: 1 },
  mode: { label: 'Search mode', range: 'hybrid, text or vector' },
  top_k: { label: 'Results (top_k)', range: '1–50', min: 1, max: 50, step: 1 },
  window: { label: 'Neighbour passages (window)', range: '0–5', min: 0, max: 5, step: 1 },
  max_distance: { label: 'Max distance', range: '0.05–2', min: 0.05, max: 2, step: 0.01 },
  rrf_k: { label: 'Fusion constant (rrf_k)', range: '1–200', min: 1, max: 200, step: 1 },
};

/** A setting's reset beside its control (the label's height down), not beside its hint. */
const setting: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
const beside: CSSProperties = { marginTop: 24 };

/** The org knowledge settings: each with its range and default, a reset per field, errors at the field. */
export function SettingsCard() {
  const org = useOrg();
  const path = `/api/dashboard/${org.prefix}/knowledge/settings`;
  const current = useApi<SettingsAnswer>(path);
  const save = useApiMutation<Partial<Record<Setting, number | string | null>>, SettingsAnswer>('PUT', path, { invalidate: [path] });
  const [draft, setDraft] = useState<Record<Setting, string> | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const answer = current.data;
  // A new answer (loaded, saved or reset) is the form's starting point again.
  useEffect(() => {
    if (answer) setDraft(Object.fromEntries(SETTINGS.map((s) => [s, String(answer.settings[s])])) as Record<Setting, string>);
  }, [answer]);

  if (current.isPending) return <Card title="Settings"><Loading /></Card>;
  if (current.error) return <Card title="Settings"><ErrorNote error={current.error} title="Settings not loaded" /></Card>;
  if (!answer || !draft) return null;

  const failed = save.error instanceof ApiError ? save.error : null;
  const fieldOf = errorField(failed);
  const send = (body: Partial<Record<Setting, number | string | null>>, message: string) => {
    setDone(null);
    save.mutate(body, { onSuccess: () => setDone(message) });
  };
  function submit(e: FormEvent) {
    e.preventDefault();
    const changed = SETTINGS.filter((s) => draft![s] !== String(answer!.settings[s]));
    if (!changed.length) return setDone('Nothing to save.');
    send(Object.fromEntries(changed.map((s) => [s, s === 'mode' ? draft![s] : Number(draft![s])])), 'Settings saved.');
  }

  return (
    <Card title="Settings">
      <p>{answer.embedder ? <>Embedder: <strong>{answer.embedder.model}</strong>.</> : <>No embedder is configured: every search is text only.</>}</p>
      <form onSubmit={submit} aria-label="Knowledge settings">
        {SETTINGS.map((s) => {
          const meta = RANGES[s];
          const common = {
            label: meta.label, value: draft[s], hint: `${meta.range}; default ${answer.defaults[s]}`,
            error: fieldOf === s ? failed!.message : undefined,
          };
          return (
            <div key={s} style={setting}>
              {s === 'mode'
                ? <Field as="select" {...common} onChange={(e) => setDraft({ ...draft, [s]: e.target.value })}>{MODES.map((m) => <option key={m} value={m}>{m}</option>)}</Field>
                : <Field type="number" min={meta.min} max={meta.max} step={meta.step} required {...common} onChange={(e) => setDraft({ ...draft, [s]: e.target.value })} />}
              <Button onClick={() => send({ [s]: null }, `${meta.label} is back to its default.`)} disabled={save.isPending} style={beside} aria-label={`Reset ${meta.label} to default`}>Reset to default</Button>
            </div>
          );
        })}
        <Button type="submit" variant="primary" disabled={save.isPending}>Save settings</Button>
      </form>
      {failed && !fieldOf && <ErrorNote error={failed} title="Settings not saved" />}
      {save.error && !failed && <ErrorNote error={save.error} title="Settings not saved" />}
      {done && !save.error && <p role="status" style={ok}>{done}</p>}
    </Card>
  );
}

