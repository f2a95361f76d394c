// Add a monitor (POST /monitors) or change the one being edited (PUT /monitors/<id>): name, URL, interval, expected
// status, timeout, keyword, failures before down, paused. The server checks everything; its error names the field.
import { useState, type FormEvent } from 'react';
import { Button, Card, Field, SaveOutcome, apiFetch } from '@quad/web/sdk';
import { BOUNDS, errorField, monitorPath, row, useRefresh, useUptimeBase, type Monitor } from './common.js';

type Numbers = 'interval_seconds' | 'expected_status' | 'timeout_ms' | 'down_after';
const NUMBERS: [Numbers, string, string][] = [
  ['interval_seconds', 'Every (seconds)', 'Time between checks'],
  ['expected_status', 'Expected status', 'After redirects'],
  ['timeout_ms', 'Timeout (ms)', 'The whole check\'s deadline'],
  ['down_after', 'Failures before down', 'Failed checks in a row'],
];

const draftOf = (m: Monitor | null): Record<Numbers, string> =>
  Object.fromEntries(NUMBERS.map(([k]) => [k, String(m ? m[k] : BOUNDS[k].default)])) as Record<Numbers, string>;

export function MonitorForm({ monitor, onDone }: { monitor: Monitor | null; onDone: () => void }) {
  const base = useUptimeBase();
  const refresh = useRefresh();
  const [name, setName] = useState(monitor?.name ?? '');
  const [url, setUrl] = useState(monitor?.url ?? '');
  const [keyword, setKeyword] = useState(monitor?.keyword ?? '');
  const [numbers, setNumbers] = useState(() => draftOf(monitor));
  const [paused, setPaused] = useState(monitor?.paused ?? false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const invalid = (field: string) => (errorField(error) === field ? true : undefined);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setSaved(null);
    const body = {
      name: name.trim(), url: url.trim(), keyword: keyword === '' ? null : keyword, paused,
      ...Object.fromEntries(NUMBERS.map(([k]) => [k, Number(numbers[k])])),
    };
    try {
      await apiFetch(monitor ? monitorPath(base, monitor.id) : `${base}/monitors`, { method: monitor ? 'PUT' : 'POST', body });
      await refresh();
      if (monitor) {
        onDone();
      } else {
        setSaved(`Added ${body.name}: its first check is due now.`);
        setName(''); setUrl(''); setKeyword(''); setNumbers(draftOf(null)); setPaused(false);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const title = monitor ? `Edit ${monitor.name}` : 'Add a monitor';
  return (
    <Card title={title}>
      <form onSubmit={submit} aria-label={title}>
        <div style={row}>
          <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} aria-invalid={invalid('name')} />
          <Field label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required maxLength={2048} placeholder="https://example.org/health"
            aria-invalid={invalid('url')} hint="http or https; checked from the internet side, never a private address" />
          <Field label="Keyword" value={keyword} onChange={(e) => setKeyword(e.target.value)} maxLength={200} aria-invalid={invalid('keyword')}
            hint="Optional: text the page must contain (case-sensitive)" />
        </div>
        <div style={row}>
          {NUMBERS.map(([k, label, hint]) => (
            <Field key={k} label={label} type="number" min={BOUNDS[k].min} max={BOUNDS[k].max} step={1} required value={numbers[k]}
              onChange={(e) => setNumbers({ ...numbers, [k]: e.target.value })} aria-invalid={invalid(k)}
              hint={`${hint}; ${BOUNDS[k].min}–${BOUNDS[k].max}, default ${BOUNDS[k].default}`} />
          ))}
        </div>
        <p><label className="q-switch">
          <input type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} /> Paused (not checked on schedule)
        </label></p>
        <span style={{ display: 'inline-flex', gap: 8 }}>
          <Button type="submit" variant="primary" disabled={busy}>{monitor ? 'Save' : 'Add monitor'}</Button>
          {monitor && <Button onClick={onDone}>Cancel</Button>}
        </span>
      </form>
      <SaveOutcome error={error} saved={saved} failedTitle={monitor ? 'Not saved' : 'Not added'} />
    </Card>
  );
}
