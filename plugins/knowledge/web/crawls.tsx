// The Crawls tab (README "Crawls"): the org's crawl records with their schedule and last error, Run now (or with
// force) followed to its outcome (crawl-run.ts), Delete (stop crawling; the source stays) after a dialog, Re-crawl
// all (POST /reindex), and the form that adds a crawl (PUT /crawls/<key>) with the server's error beside it.
import { useState, type FormEvent } from 'react';
import {
  ApiError, Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, ShowMore, Table, useApi, useApiMutation,
} from '@quad/web/sdk';
import { actions, bad, errorField, keyPath, ok, plural, row, useKnowledgeBase, when, type Crawl, type SourceList } from './common.js';
import type { CrawlRuns, Track } from './crawl-run.js';

type CrawlList = { crawls: Crawl[] };

export function CrawlsTab({ runs }: { runs: CrawlRuns }) {
  return (
    <>
      <CrawlListCard runs={runs} />
      <AddCrawlCard />
    </>
  );
}

function CrawlListCard({ runs }: { runs: CrawlRuns }) {
  const base = useKnowledgeBase();
  const list = useApi<CrawlList>(`${base}/crawls`);
  const [stopping, setStopping] = useState<string | null>(null);
  const remove = useApiMutation('DELETE', `${base}/crawls/${keyPath(stopping ?? '')}`, { invalidate: [`${base}/crawls`, `${base}/sources`] });
  const crawls = list.data?.crawls ?? [];
  const busy = (key: string) => runs.tracks[key]?.phase === 'crawling';

  return (
    <Card title="Crawls">
      <Reindex />
      {Object.entries(runs.tracks).map(([key, track]) => <RunNote key={key} sourceKey={key} track={track} onDismiss={() => runs.dismiss(key)} />)}
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Crawls not loaded" />
        : crawls.length === 0 ? <EmptyState title="No crawls yet">Add a URL below: the service fetches it on its schedule into the source of the same key.</EmptyState>
          : (
            <ShowMore items={crawls}>
              {(shown) => (
                <Table caption="Crawls" rows={shown} rowKey={(c) => c.key} columns={[
                  { header: 'Key', cell: (c) => <><code>{c.key}</code>{c.title && <div>{c.title}</div>}</> },
                  { header: 'URL', cell: (c) => <Link url={c.url} /> },
                  { header: 'Category', cell: 'category' },
                  { header: 'Schedule', cell: schedule },
                  { header: 'Last attempt', cell: (c) => when(c.last_attempt_at, 'never') },
                  { header: 'Last error', cell: lastError },
                  {
                    header: 'Actions', cell: (c) => (
                      <div style={{ ...actions, flexWrap: 'wrap', minWidth: 190 }}>
                        <Button onClick={() => runs.start(c.key, false)} disabled={busy(c.key)} aria-label={`Run ${c.key} now`}>Run now</Button>
                        <Button onClick={() => runs.start(c.key, true)} disabled={busy(c.key)} aria-label={`Run ${c.key} with force`}>Run with force</Button>
                        <Button variant="danger" onClick={() => { remove.reset(); setStopping(c.key); }} aria-label={`Delete crawl ${c.key}`}>Delete</Button>
                      </div>
                    ),
                  },
                ]} />
              )}
            </ShowMore>
          )}
      <ConfirmDialog open={stopping !== null} title={`Stop crawling ${stopping ?? ''}?`} confirmLabel="Stop crawling" danger busy={remove.isPending}
        onCancel={() => setStopping(null)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => setStopping(null) })}>
        <p>The crawl record is deleted and the URL is no longer fetched. The source and its passages stay; delete them on the Sources tab.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}

/** Only http(s) URLs are links (the server accepts no other; this keeps a `javascript:` out of an href anyway). */
function Link({ url }: { url: string }) {
  if (!/^https?:\/\//i.test(url)) return <>{url}</>;
  return <div style={{ minWidth: 140, overflowWrap: 'anywhere' }}><a href={url} target="_blank" rel="noopener noreferrer">{url}</a></div>;
}

/** The schedule takes due records every 10 minutes (a new URL is due at once; every crawl moves next_at ahead). */
const due = (c: Crawl) => c.next_at !== null && Date.parse(c.next_at) <= Date.now();

/** Every N hours, and the next crawl, or Disabled (the schedule leaves it alone; Run now still crawls it). */
function schedule(c: Crawl) {
  return (
    <>
      <div style={{ whiteSpace: 'nowrap' }}>Every {c.fetch_every_hours} h</div>
      <div className="q-hint">{!c.enabled ? 'Disabled: not scheduled' : due(c) ? 'Due now' : `Next ${when(c.next_at)}`}</div>
    </>
  );
}

function lastError(c: Crawl) {
  if (c.last_error) return <div style={{ ...bad, minWidth: 160 }}>{c.last_error}</div>;
  return c.last_attempt_at ? <span style={ok}>OK</span> : '—';
}

/** What Run now came to: a status region whose text changes from the progress to the outcome. */
function RunNote({ sourceKey, track, onDismiss }: { sourceKey: string; track: Track; onDismiss: () => void }) {
  if (track.phase === 'refused') {
    return <div style={row}><ErrorNote error={track.error} title={`Crawl of ${sourceKey} not started`} /><Dismiss sourceKey={sourceKey} onClick={onDismiss} /></div>;
  }
  const failed = track.phase === 'done' && track.run.error !== null;
  return (
    <div style={{ ...row, alignItems: 'center' }}>
      <p role="status" className={failed ? 'q-note q-note-error' : 'q-note'} style={{ flex: 1, margin: '4px 0', ...(track.phase === 'done' && !failed && ok) }}>
        {runText(sourceKey, track)}
      </p>
      {track.phase !== 'crawling' && <Dismiss sourceKey={sourceKey} onClick={onDismiss} />}
    </div>
  );
}

function runText(key: string, track: Exclude<Track, { phase: 'refused' }>): string {
  switch (track.phase) {
    case 'crawling': return `Crawling ${key}${track.force ? ' with force' : ''}…`;
    case 'busy': return `A crawl of ${key} is already running: its result appears in the run log when it ends.`;
    case 'lost': return `No result for ${key} after 2 minutes: the crawl may still be queued. Its row appears in the run log when it ends.`;
    case 'done': {
      const { error, changed, passages } = track.run;
      if (error) return `Crawl of ${key} failed: ${error}`;
      return changed ? `Crawled ${key}: a new version of ${plural(passages, 'passage')}.` : `Crawled ${key}: unchanged, nothing written.`;
    }
  }
}

const Dismiss = ({ sourceKey, onClick }: { sourceKey: string; onClick: () => void }) => (
  <Button onClick={onClick} aria-label={`Dismiss the result of ${sourceKey}`}>Dismiss</Button>
);

/** Re-crawl all: every crawl record fetched again with force, one job of the org at a time (409 while one runs). */
function Reindex() {
  const base = useKnowledgeBase();
  const [asking, setAsking] = useState(false);
  const start = useApiMutation<void, { run_id: number }>('POST', `${base}/reindex`);
  const running = start.error instanceof ApiError && start.error.status === 409;
  const confirm = () => start.mutate(undefined, { onSettled: () => setAsking(false) });
  return (
    <div style={{ ...row, alignItems: 'center', marginBottom: 8 }}>
      <Button onClick={() => { start.reset(); setAsking(true); }} disabled={start.isPending}>Re-crawl all (reindex)</Button>
      {start.data && <p role="status" style={{ ...ok, margin: 0 }}>Re-crawl started (job run #{start.data.run_id}). Each page's result appears in the run log.</p>}
      {running && <p role="status" style={{ margin: 0 }}>A re-crawl is already running.</p>}
      {start.error && !running && <ErrorNote error={start.error} title="Re-crawl not started" />}
      <ConfirmDialog open={asking} title="Re-crawl every URL?" confirmLabel="Re-crawl all" busy={start.isPending} onCancel={() => setAsking(false)} onConfirm={confirm}>
        <p>Every crawl of the org is fetched again with force: an unchanged page is read again and a much shorter text is accepted. Fetches to one site are spaced out, so it can take a while. It counts against the day's job limit.</p>
      </ConfirmDialog>
    </div>
  );
}

const EMPTY = { key: '', url: '', category: '', title: '', every: '24', public: false };

/** Add a crawl (PUT /crawls/<key>; an existing key is changed). The server checks the key and URL. */
function AddCrawlCard() {
  const base = useKnowledgeBase();
  const mayPublish = useApi<SourceList>(`${base}/sources`).data?.may_publish ?? false;
  const existing = useApi<CrawlList>(`${base}/crawls`).data?.crawls ?? [];
  const [draft, setDraft] = useState(EMPTY);
  const [done, setDone] = useState<string | null>(null);
  const key = draft.key.trim();
  const save = useApiMutation<Record<string, unknown>, Crawl>('PUT', `${base}/crawls/${keyPath(key)}`, { invalidate: [`${base}/crawls`, `${base}/sources`] });
  const known = existing.some((c) => c.key === key);
  const invalid = (field: string) => (errorField(save.error) === field ? true : undefined);
  const edit = (change: Partial<typeof EMPTY>) => setDraft({ ...draft, ...change });

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    const body = {
      url: draft.url.trim(), fetch_every_hours: Number(draft.every),
      // Left out when empty, so changing a crawl keeps them (a new one gets the page's title).
      ...(draft.category.trim() && { category: draft.category.trim() }), ...(draft.title.trim() && { title: draft.title.trim() }),
      ...(mayPublish && { public: draft.public }),
    };
    save.mutate(body, {
      onSuccess: (crawl) => {
        setDone(known ? `Crawl ${crawl.key} changed.` : `Crawl ${crawl.key} added: Run now fetches it at once, else the schedule does soon.`);
        setDraft(EMPTY);
      },
    });
  }

  return (
    <Card title="Add crawl">
      <form onSubmit={submit} aria-label="Add crawl">
        <div style={row}>
          <Field label="Key" value={draft.key} onChange={(e) => edit({ key: e.target.value })} required maxLength={255} aria-invalid={invalid('key')}
            hint={known ? 'This key has a crawl: saving changes it.' : 'The source it fills: letters, digits and ._:/- (site/hours)'} />
          <Field label="URL" type="url" value={draft.url} onChange={(e) => edit({ url: e.target.value })} required maxLength={2048} aria-invalid={invalid('url')} hint="http or https" />
        </div>
        <div style={row}>
          <Field label="Category" value={draft.category} onChange={(e) => edit({ category: e.target.value })} maxLength={200} aria-invalid={invalid('category')} />
          <Field label="Title" value={draft.title} onChange={(e) => edit({ title: e.target.value })} maxLength={500} aria-invalid={invalid('title')} hint="Empty: the page's title" />
          <Field label="Every (hours)" type="number" min={1} max={720} step={1} required value={draft.every} onChange={(e) => edit({ every: e.target.value })}
            aria-invalid={invalid('fetch_every_hours')} hint="1–720; default 24" />
        </div>
        {mayPublish && (
          <p><label className="q-switch"><input type="checkbox" checked={draft.public} onChange={(e) => edit({ public: e.target.checked })} /> Public: every org's agents may find it</label></p>
        )}
        <Button type="submit" variant="primary" disabled={save.isPending}>{known ? 'Save crawl' : 'Add crawl'}</Button>
      </form>
      {save.error && <ErrorNote error={save.error} title="Crawl not saved" />}
      {done && !save.error && <p role="status" style={ok}>{done}</p>}
    </Card>
  );
}
