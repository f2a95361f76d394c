// Activity → CI runs (the old `ci` address): the latest GitHub Actions runs of each listed repo (cached 120 s by
// the service), and the list of repos (PUT /ci/repos, at most 20).
import { useEffect, useState } from 'react';
import { apiFetch } from '../../sdk/api.js';
import { useOrg } from '../../sdk/org.js';
import { apiKey, queryClient, useApi } from '../../sdk/query.js';
import { Button } from '../../sdk/ui/button.js';
import { Card } from '../../sdk/ui/card.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { Field } from '../../sdk/ui/field.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { Table } from '../../sdk/ui/table.js';
import { StatusBadge, When } from './format.js';

export interface CiRun { name: string; branch: string | null; event: string; status: string; conclusion: string | null; title: string; url: string; started_at: string | null }
export interface CiRepo { repo: string; runs: CiRun[]; error: null | { reason: string; message: string }; fetched_at: string }
export interface CiAnswer { repos: CiRepo[]; cache_seconds: number }

const REASONS: Record<string, string> = {
  not_found: 'No such repo, or it is private and the GitHub token cannot read it.',
  bad_credentials: 'GitHub refused the org\'s token.',
  forbidden: 'GitHub refused to show its runs.',
  rate_limited: 'GitHub\'s rate limit is reached; the runs come back later.',
  moved: 'The repo was renamed: list its new name.',
  unavailable: 'GitHub did not answer.',
};

/** A run's state in one word: its conclusion once it has one. */
export const runState = (r: CiRun) => r.conclusion ?? r.status;

export function RepoRuns({ repo }: { repo: CiRepo }) {
  if (repo.error) return <p className="q-note q-note-error" role="alert">{REASONS[repo.error.reason] ?? repo.error.message}</p>;
  if (repo.runs.length === 0) return <p className="q-hint">No workflow runs yet.</p>;
  return (
    <Table caption={`Runs of ${repo.repo}`} rows={repo.runs} rowKey={(r) => r.url} columns={[
      { header: 'Workflow', cell: (r) => <><a href={r.url} target="_blank" rel="noreferrer">{r.name}</a><div className="q-cell-text">{r.title}</div></> },
      { header: 'Branch', cell: (r) => r.branch ?? '' },
      { header: 'Event', cell: 'event' },
      { header: 'State', cell: (r) => <StatusBadge status={runState(r)} /> },
      { header: 'Started', cell: (r) => <When at={r.started_at} /> },
    ]} />
  );
}

export function CiTab() {
  const org = useOrg();
  const path = `/api/dashboard/${org.prefix}/ci`;
  const ci = useApi<CiAnswer>(path);
  return (
    <>
      <RepoEditor path={path} listed={ci.data?.repos.map((r) => r.repo)} />
      {ci.isPending ? <Loading /> : ci.error ? <ErrorNote error={ci.error} /> : ci.data.repos.length === 0
        ? <EmptyState title="No repos listed">List repos above to see their latest workflow runs.</EmptyState>
        : ci.data.repos.map((repo) => (
          <Card key={repo.repo} title={repo.repo}>
            <RepoRuns repo={repo} />
          </Card>
        ))}
    </>
  );
}

function RepoEditor({ path, listed }: { path: string; listed: string[] | undefined }) {
  const [text, setText] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  // The field starts from the listed repos once they are known, and follows them until the officer edits it.
  const shown = text ?? listed?.join('\n') ?? '';
  useEffect(() => setSaved(false), [text]);

  const save = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const repos = shown.split(/[\s,]+/).map((r) => r.trim()).filter(Boolean);
      await apiFetch(`${path}/repos`, { method: 'PUT', body: { repos } });
      setText(null);
      // The runs of the new list: fetched again (the answer of the old list is no longer right).
      await queryClient.invalidateQueries({ queryKey: apiKey(path) });
      setSaved(true);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Repos">
      <form onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <Field as="textarea" label="Repos to follow" rows={4} value={shown} disabled={listed === undefined}
          hint="owner/name, one a line, at most 20. Private repos need the GitHub token (Settings → Secrets). Runs are cached 120 seconds."
          onChange={(e) => setText(e.target.value)} />
        <div className="q-toolbar">
          <Button type="submit" variant="primary" disabled={busy || listed === undefined}>Save repos</Button>
          {saved && <span role="status" className="q-hint">Saved.</span>}
        </div>
        {failure !== null && <ErrorNote title="The repos were not saved" error={failure} />}
      </form>
    </Card>
  );
}
