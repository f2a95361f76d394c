// Today's problem as posted (GET /daily), Post now (POST /post-now; "Post again" sends force once it is posted) and
// who solved it (GET /solves). A Post now runs as a job: the page reads /daily again until the post is settled.
import { useEffect, useState } from 'react';
import { Button, Card, EmptyState, ErrorNote, Loading, Table, apiFetch, useApi } from '@quad/web/sdk';
import { useBase, useRefresh, when, type Post, type Solve } from './common.js';

const POLL_MS = 2000;

export function Today() {
  const base = useBase();
  const refresh = useRefresh();
  // While a Post now runs: the post time it had before (null: none), so a new post (or a failure) ends the wait.
  const [waiting, setWaiting] = useState<{ before: string | null } | null>(null);
  const daily = useApi<{ date: string; post: Post | null }>(`${base}/daily`, waiting ? { refetchInterval: POLL_MS } : {});
  const solves = useApi<{ date: string; solves: Solve[]; total: number }>(`${base}/solves`);
  const [force, setForce] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const post = daily.data?.post ?? null;

  // The job posted (or failed): stop reading again.
  useEffect(() => {
    if (!waiting || !post) return;
    if (post.status === 'failed' || (post.status === 'posted' && post.posted_at !== waiting.before)) {
      setWaiting(null);
      setForce(false);
    }
  }, [waiting, post]);

  async function postNow() {
    setError(null);
    try {
      await apiFetch(`${base}/post-now`, { method: 'POST', body: { force: post?.status === 'posted' && force } });
      setWaiting({ before: post?.posted_at ?? null });
      await refresh();
    } catch (err) {
      setError(err);
    }
  }

  return (
    <Card title="Today's problem">
      {daily.isPending ? <Loading /> : daily.error ? <ErrorNote error={daily.error} title="Today's problem not loaded" /> : !post ? (
        <EmptyState title="Not posted yet">The daily job posts it at the hour in the settings; Post now posts it at once.</EmptyState>
      ) : (
        <div data-testid="leetcode-today">
          <p><a href={post.link} target="_blank" rel="noreferrer"><strong>{post.question_id}. {post.title}</strong></a> · {post.difficulty}{post.tags.length ? ` · ${post.tags.join(', ')}` : ''}</p>
          <p className="q-hint">
            {post.status === 'posted' ? `Posted ${when(post.posted_at)} to channel ${post.channel_id}` : post.status === 'failed' ? 'Not posted' : 'Posting…'}
          </p>
          {post.error && <p className="q-note q-note-error" role="alert">{post.error}</p>}
        </div>
      )}
      <div style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }}>
        <Button variant="primary" onClick={postNow} disabled={waiting !== null}>Post now</Button>
        {post?.status === 'posted' && (
          <label className="q-switch"><input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Post again</label>
        )}
        {waiting !== null && <span role="status">Posting today's problem…</span>}
      </div>
      {error !== null && <ErrorNote error={error} title="Not posted" />}
      <h3>Solved today</h3>
      {solves.isPending ? <Loading /> : solves.error ? <ErrorNote error={solves.error} title="Solvers not loaded" />
        : solves.data.solves.length === 0 ? <p>Nobody yet: solves are checked every 30 minutes.</p> : (
          <Table caption={`Solvers of ${solves.data.date}`} rows={solves.data.solves} rowKey={(s) => s.chat_user_id} columns={[
            { header: 'Member', cell: (s) => s.display_name ?? s.chat_user_id },
            { header: 'LeetCode', cell: 'username' },
            { header: 'Solved', cell: (s) => when(s.solved_at) },
            { header: 'Points', numeric: true, cell: 'points' },
          ]} />
        )}
    </Card>
  );
}
