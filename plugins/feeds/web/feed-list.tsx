// The feeds of the page's kind (GET /feeds): schedule, last run, last error and posts; per feed Run now (with "Post
// current items" before its first run: post_existing), History, Edit and Delete (asks first). What each Run now
// came to is said above the table (feed-runs.ts).
import { useState } from 'react';
import { Button, Card, ConfirmDialog, EmptyState, ErrorNote, Loading, Table, useApi, useApiMutation, useOrg } from '@quad/web/sdk';
import { KINDS, SOURCES, actions, bad, feedPath, ok, plural, row, useFeedsBase, when, type Feed, type Kind } from './common.js';
import type { FeedRuns, Track } from './feed-runs.js';

export function FeedList({ kind, runs, onEdit, onHistory, onDeleted }: {
  kind: Kind; runs: FeedRuns; onEdit: (feed: Feed) => void; onHistory: (key: string) => void; onDeleted: (key: string) => void;
}) {
  const base = useFeedsBase();
  const { prefix } = useOrg();
  const list = useApi<{ feeds: Feed[] }>(`${base}/feeds`);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [postExisting, setPostExisting] = useState<Record<string, boolean>>({});
  const remove = useApiMutation('DELETE', feedPath(base, deleting ?? ''), { invalidate: [`${base}/`, `/api/dashboard/${prefix}/overview`] });
  const feeds = (list.data?.feeds ?? []).filter((f) => f.kind === kind);
  const title = `${KINDS[kind].noun[0]!.toUpperCase()}${KINDS[kind].noun.slice(1)}s`;
  const running = (key: string) => runs.tracks[key]?.phase === 'running' || runs.tracks[key]?.phase === 'busy';
  const run = (f: Feed) => {
    runs.start(f.key, !f.first_run_done && (postExisting[f.key] ?? false));
    onHistory(f.key);
  };

  return (
    <Card title={title}>
      {feeds.map((f) => runs.tracks[f.key] && <RunNote key={f.key} feedKey={f.key} track={runs.tracks[f.key]!} onDismiss={() => runs.dismiss(f.key)} />)}
      {list.isPending ? <Loading /> : list.error ? <ErrorNote error={list.error} title="Feeds not loaded" />
        : feeds.length === 0 ? <EmptyState title="No feeds yet">Add one with the form, or from a preset.</EmptyState>
          : (
            <Table caption={title} rows={feeds} rowKey={(f) => f.key} columns={[
              { header: 'Feed', cell: (f) => <><code>{f.key}</code><div className="q-hint">{source(f)}</div></> },
              { header: 'Schedule', cell: schedule },
              { header: 'Last run', cell: lastRun },
              { header: 'Last error', cell: (f) => (f.last_error ? <div style={{ ...bad, minWidth: 160 }}>{f.last_error}</div> : f.last_run ? <span style={ok}>OK</span> : '—') },
              { header: 'Posts', numeric: true, cell: 'posts' },
              {
                header: 'Actions', cell: (f) => (
                  <div style={{ ...actions, minWidth: 220 }}>
                    {!f.first_run_done && (
                      <label className="q-switch" title="The first run only records what is listed now; this posts it too">
                        <input type="checkbox" checked={postExisting[f.key] ?? false} onChange={(e) => setPostExisting({ ...postExisting, [f.key]: e.target.checked })} />
                        Post current items
                      </label>
                    )}
                    <Button onClick={() => run(f)} disabled={running(f.key)} aria-label={`Run ${f.key} now`}>Run now</Button>
                    <Button onClick={() => onHistory(f.key)} aria-label={`History of ${f.key}`}>History</Button>
                    <Button onClick={() => onEdit(f)} aria-label={`Edit ${f.key}`}>Edit</Button>
                    <Button variant="danger" onClick={() => { remove.reset(); setDeleting(f.key); }} aria-label={`Delete ${f.key}`}>Delete</Button>
                  </div>
                ),
              },
            ]} />
          )}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting ?? ''}?`} confirmLabel="Delete feed" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => { onDeleted(deleting!); runs.dismiss(deleting!); setDeleting(null); } })}>
        <p>The feed, its run history, the items it recorded and its webhook URL are deleted. Nothing more is posted to its channel.</p>
        {remove.error && <ErrorNote error={remove.error} title="Not deleted" />}
      </ConfirmDialog>
    </Card>
  );
}

/** What the feed reads: the repository file, or the listings. */
function source(f: Feed): string {
  const c = f.config;
  if (f.kind === 'repo_jobs') return `${String(c.repo)} (${String(c.branch)}, ${String(c.path)})`;
  const chosen = Array.isArray(c.sources) ? c.sources : [];
  return `${SOURCES.filter(([id]) => chosen.includes(id)).map(([, service]) => service).join(', ')}; ${String(c.min_days_ahead)}–${String(c.max_days_ahead)} days ahead`;
}

/** The schedule takes due feeds every 15 minutes (a new feed is due at once). */
const due = (f: Feed) => f.schedule.next_run_at !== null && Date.parse(f.schedule.next_run_at) <= Date.now();

function schedule(f: Feed) {
  return (
    <>
      <div style={{ whiteSpace: 'nowrap' }}>Every {f.every_hours} h</div>
      <div className="q-hint">{!f.enabled ? 'Paused: not scheduled' : due(f) ? 'Due now' : `Next ${when(f.schedule.next_run_at)}`}</div>
    </>
  );
}

function lastRun(f: Feed) {
  const r = f.last_run;
  if (!r) return f.first_run_done ? '—' : 'Never run';
  return (
    <>
      <div>{when(r.at)}</div>
      <div className="q-hint">{r.found} found, {r.new} new, {r.posted} posted</div>
    </>
  );
}

/** What Run now came to: a status line whose text moves from the progress to the outcome. */
function RunNote({ feedKey, track, onDismiss }: { feedKey: string; track: Track; onDismiss: () => void }) {
  const dismiss = <Button onClick={onDismiss} aria-label={`Dismiss the result of ${feedKey}`}>Dismiss</Button>;
  if (track.phase === 'refused') return <div style={row}><ErrorNote error={track.error} title={`Run of ${feedKey} not started`} />{dismiss}</div>;
  const failed = track.phase === 'done' && track.run.error !== null;
  return (
    <div style={{ ...row, alignItems: 'center' }}>
      <p role="status" className={failed ? 'q-note q-note-error' : 'q-note'} style={{ flex: 1, margin: '4px 0', ...(track.phase === 'done' && !failed && ok) }}>
        {runText(feedKey, track)}
      </p>
      {track.phase !== 'running' && track.phase !== 'busy' && dismiss}
    </div>
  );
}

function runText(key: string, track: Exclude<Track, { phase: 'refused' }>): string {
  switch (track.phase) {
    case 'running': return `Running ${key}…`;
    case 'busy': return `A run of ${key} is already queued or running: its result shows here and in the history when it ends.`;
    case 'lost': return `No result for ${key} after 2 minutes: the run may still be queued. It appears in the history when it ends.`;
    case 'done': {
      const { error, found, posted, note } = track.run;
      if (error) return `Run of ${key} failed: ${error}`;
      return `Ran ${key}: ${found} found, ${track.run.new} new, ${plural(posted, 'post')}.${note ? ` ${note}` : ''}`;
    }
  }
}
