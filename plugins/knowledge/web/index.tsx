// The knowledge module's dashboard page (/dashboard/knowledge), built into web/dist/index.js and loaded by the
// dashboard at run time. React and @quad/web/sdk are the dashboard's own (its import map). Routes: README
// "Officer routes" and POST /search (routes/preview.ts): sources grouped by domain, a reader, settings, test search.
import { useEffect, useState, type CSSProperties, type FormEvent } from 'react';
import {
  ApiError, Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, Page, ShowMore, Table, Tabs, tabId,
  useApi, useApiMutation, useOrg, type PageProps,
} from '@quad/web/sdk';

interface Source {
  key: string; title: string; url: string; category: string; public: boolean; updated_at: string;
  current_version: { id: number; embedding_model: string | null; chunks: number; created_at: string } | null;
}
interface ReadPage {
  source: Source & { own: boolean; text_chars: number };
  passages: { id: number; ordinal: number; text: string }[];
  offset: number; next_offset: number | null; total: number;
}
const SETTINGS = ['chunk_chars', 'chunk_overlap', 'mode', 'top_k', 'window', 'max_distance', 'rrf_k'] as const;
type Setting = (typeof SETTINGS)[number];
type Values = Record<Setting, number | string>;
interface SettingsAnswer { settings: Values; defaults: Values; embedder: { model: string } | null }
interface Result { chunk_id: number; source_key: string; title: string; category: string; content: string; score: number }
interface Hit { chunk_id: number; rank: number; source_key: string; ordinal: number; distance?: number }
interface Preview { results: Result[]; dense: boolean; mode: string; vector: Hit[]; text: Hit[] }

const MODES = ['hybrid', 'text', 'vector'];
const TABS = [{ id: 'sources', label: 'Sources' }, { id: 'search', label: 'Test search' }, { id: 'settings', label: 'Settings' }];
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
const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
const ok: CSSProperties = { color: 'var(--ok)' };
/** A setting's reset beside its control (the label's height down), not beside its hint. */
const setting: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
const beside: CSSProperties = { marginTop: 24 };

/** A source's domain: its key before the first `/` (spec "Knowledge source"). */
const domainOf = (key: string) => key.split('/')[0]!;
const when = (iso: string) => new Date(iso).toLocaleString();

/** The page at /dashboard/knowledge (manifest pages.list[0].component). */
export function KnowledgePage(_props: PageProps) {
  const [tab, setTab] = useState('sources');
  const [reading, setReading] = useState<string | null>(null);
  return (
    <Page title="Knowledge">
      <Tabs label="Knowledge" tabs={TABS} current={tab} onChange={setTab} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
        {tab === 'search' ? <SearchCard /> : tab === 'settings' ? <SettingsCard /> : (
          <>
            {/* Above the list, which may be long: the officer opened it from a row. */}
            {reading !== null && <div style={{ marginBottom: 16 }}><ReaderCard key={reading} sourceKey={reading} onClose={() => setReading(null)} /></div>}
            <SourcesCard onRead={setReading} onDeleted={(key) => setReading((r) => (r === key ? null : r))} />
          </>
        )}
      </div>
    </Page>
  );
}

/** The org's sources, grouped by domain: 100 rows, then Show more. */
function SourcesCard({ onRead, onDeleted }: { onRead: (key: string) => void; onDeleted: (key: string) => void }) {
  const org = useOrg();
  const base = `/api/dashboard/${org.prefix}/knowledge`;
  const list = useApi<{ sources: Source[] }>(`${base}/sources`);
  const [deleting, setDeleting] = useState<string | null>(null);
  const remove = useApiMutation('DELETE', `${base}/sources/${deleting ?? ''}`, { invalidate: [`${base}/sources`] });
  // By domain, then key, so a page of 100 rows holds whole groups where it can.
  const sorted = [...(list.data?.sources ?? [])].sort((a, b) => domainOf(a.key).localeCompare(domainOf(b.key)) || a.key.localeCompare(b.key));

  return (
    <Card title="Sources">
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Sources not loaded" />
        : sorted.length === 0 ? <EmptyState title="No sources yet">Clients write sources through the knowledge API (PUT /api/knowledge/sources/&lt;key&gt;).</EmptyState>
          : (
            <ShowMore items={sorted}>
              {(shown) => groups(shown).map(([domain, sources]) => (
                <div key={domain} style={{ marginBottom: 16 }}>
                  <Table caption={domain} showCaption rows={sources} rowKey={(s) => s.key} columns={[
                    { header: 'Title', cell: (s) => s.title || '(untitled)' },
                    { header: 'Key', cell: (s) => <code>{s.key}</code> },
                    { header: 'Category', cell: 'category' },
                    { header: 'Public', cell: (s) => (s.public ? 'Yes' : 'No') },
                    { header: 'Passages', numeric: true, cell: (s) => s.current_version?.chunks ?? 0 },
                    { header: 'Model', cell: (s) => s.current_version?.embedding_model ?? 'text only' },
                    { header: 'Updated', cell: (s) => when(s.updated_at) },
                    {
                      header: 'Actions', cell: (s) => (
                        <div style={{ display: 'flex', gap: 8 }}>
                          <Button onClick={() => onRead(s.key)} aria-label={`Read ${s.key}`}>Read</Button>
                          <Button variant="danger" onClick={() => { remove.reset(); setDeleting(s.key); }} aria-label={`Delete ${s.key}`}>Delete</Button>
                        </div>
                      ),
                    },
                  ]} />
                </div>
              ))}
            </ShowMore>
          )}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting ?? ''}?`} confirmLabel="Delete source" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => { onDeleted(deleting!); setDeleting(null); } })}>
        <p>The source, its versions and all its passages are deleted. Agents no longer find them.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}

function groups(sources: readonly Source[]): [string, Source[]][] {
  const out = new Map<string, Source[]>();
  for (const s of sources) out.set(domainOf(s.key), [...(out.get(domainOf(s.key)) ?? []), s]);
  return [...out.entries()];
}

/** One source's text, a page at a time. */
function ReaderCard({ sourceKey, onClose }: { sourceKey: string; onClose: () => void }) {
  const org = useOrg();
  const [offset, setOffset] = useState(0);
  const page = useApi<ReadPage>(`/api/dashboard/${org.prefix}/knowledge/sources/${sourceKey}?offset=${offset}`);
  const data = page.data;
  return (
    <Card title={`Reading ${sourceKey}`} actions={<Button onClick={onClose}>Close</Button>}>
      {page.isPending ? <Loading /> : page.error ? <ErrorNote error={page.error} title="Source not read" /> : data && (
        <section aria-label="Reader">
          <p role="status">
            {data.source.title || sourceKey} · passages {data.total === 0 ? 0 : data.offset + 1}–{data.offset + data.passages.length} of {data.total} · {data.source.text_chars} characters
          </p>
          {/* A page may hold 500 passages: it scrolls in its own box, so the paging buttons stay near. */}
          <div style={{ maxHeight: '60vh', overflowY: 'auto' }} tabIndex={0}>
            <ol start={data.offset + 1} aria-label="Passages">
              {data.passages.map((p) => <li key={p.id} style={{ whiteSpace: 'pre-wrap', marginBottom: 8 }}>{p.text}</li>)}
            </ol>
          </div>
          <div style={{ display: 'flex', gap: 8 }}>
            <Button disabled={data.offset === 0} onClick={() => setOffset(0)}>First page</Button>
            <Button disabled={data.next_offset === null} onClick={() => data.next_offset !== null && setOffset(data.next_offset)}>Next page</Button>
          </div>
        </section>
      )}
    </Card>
  );
}

/** The org knowledge settings: each with its range and default, a reset per field, errors at the field. */
function SettingsCard() {
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
  const fieldOf = failed && typeof failed.body?.field === 'string' ? failed.body.field.replace(/^body\./, '') : null;
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

/** Try a query: the results in fused order, and the vector and text lists the fusion merged. */
function SearchCard() {
  const org = useOrg();
  const run = useApiMutation<{ query: string; mode?: string; category?: string; top_k?: number }, Preview>('POST', `/api/dashboard/${org.prefix}/knowledge/search`);
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('');
  const [category, setCategory] = useState('');
  const [topK, setTopK] = useState('');
  function submit(e: FormEvent) {
    e.preventDefault();
    run.mutate({ query: query.trim(), ...(mode && { mode }), ...(category.trim() && { category: category.trim() }), ...(topK && { top_k: Number(topK) }) });
  }
  const answer = run.data;
  const name = (h: { source_key: string; ordinal: number }) => `${h.source_key} #${h.ordinal}`;

  return (
    <Card title="Test search">
      <form aria-label="Test search" onSubmit={submit}>
        <div style={row}>
          <Field label="Query" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={2000} required />
          <Field as="select" label="Mode" value={mode} onChange={(e) => setMode(e.target.value)}>
            <option value="">The org's setting</option>
            {MODES.map((m) => <option key={m} value={m}>{m}</option>)}
          </Field>
          <Field label="Category" value={category} onChange={(e) => setCategory(e.target.value)} maxLength={200} hint="Empty: every category" />
          <Field label="Results" type="number" min={1} max={50} step={1} value={topK} onChange={(e) => setTopK(e.target.value)} hint="1–50; empty: the org's setting" />
        </div>
        <Button type="submit" variant="primary" disabled={run.isPending || !query.trim()}>Search</Button>
      </form>
      {run.error && <ErrorNote error={run.error} title="Search failed" />}
      {answer && (
        <>
          <p role="status">Mode {answer.mode}; {answer.dense ? 'the vector search ran' : 'text only (no vector search)'}; {answer.results.length} result{answer.results.length === 1 ? '' : 's'}.</p>
          <Table caption="Fused results" showCaption rows={answer.results} rowKey={(r) => r.chunk_id} columns={[
            { header: '#', numeric: true, cell: (r) => answer.results.indexOf(r) + 1 },
            { header: 'Source', cell: (r) => <code>{r.source_key}</code> },
            { header: 'Passage', cell: (r) => r.content.length > 160 ? `${r.content.slice(0, 160)}…` : r.content },
            { header: 'Score', numeric: true, cell: (r) => r.score.toFixed(5) },
          ]} />
          <Table caption="Vector list" showCaption rows={answer.vector} rowKey={(h) => h.chunk_id} columns={[
            { header: 'Rank', numeric: true, cell: 'rank' },
            { header: 'Passage', cell: name },
            { header: 'Distance', numeric: true, cell: (h) => h.distance!.toFixed(4) },
          ]} />
          {answer.vector.length === 0 && <p>No vector results.</p>}
          <Table caption="Text list" showCaption rows={answer.text} rowKey={(h) => h.chunk_id} columns={[
            { header: 'Rank', numeric: true, cell: 'rank' },
            { header: 'Passage', cell: name },
          ]} />
          {answer.text.length === 0 && <p>No text results.</p>}
        </>
      )}
    </Card>
  );
}
