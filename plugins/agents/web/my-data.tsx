// The member's own page (/agents/<org>/me, manifest pages.memberPages, in the core's member shell): what the org's
// agents keep about the signed-in member — conversations, memories, profile relations — with a delete for each
// conversation and memory and "Delete everything" behind a confirm. Calls /api/agents/<org>/me with the member's
// Discord session cookie and never an officer's token (anonymous: no Authorization header). Without a session
// (401) it links to the Discord member sign-in, which comes back here.
import { useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch, apiUrl, ApiError, Button, Card, ConfirmDialog, EmptyState, ErrorNote, Loading, Page, Table, type MemberPageProps } from '@quad/web/sdk';

interface Conversation { id: string; channel_id: string; visibility: string; last_seq: number; ended_at: string | null; created_at: string; updated_at: string }
interface Memory { id: number; kind: string; content: string; sensitivity: string; confidence: number; created_at: string; expires_at: string | null }
interface NodeRef { kind: string; label: string }
interface Relation { subject: NodeRef; relation: string; object: NodeRef; confidence: number }
interface MyData { conversations: Conversation[]; memories: Memory[]; profile: { nodes: NodeRef[]; relations: Relation[] } }
interface Deleted { conversations: number; pending: number; memories: number; nodes: number; relations: number }

const when = (at: string) => <time dateTime={at} title={at}>{new Date(at).toLocaleString()}</time>;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const node = (n: NodeRef) => `${n.label} (${n.kind})`;

/** Why the data cannot be shown, in words, or null when the member should sign in. */
function refusal(error: unknown): ReactNode {
  if (error instanceof ApiError && error.status === 403) return 'You are not a member of this org\'s Discord server, so its agents keep nothing about you here.';
  if (error instanceof ApiError && error.reason === 'module_off') return 'This org does not use agents.';
  return <ErrorNote error={error} title="Your data could not be loaded" />;
}

export function MyAgentDataPage({ org }: MemberPageProps) {
  const path = `/api/agents/${encodeURIComponent(org.prefix)}/me`;
  const key = ['agents-me', org.prefix];
  const queries = useQueryClient();
  const mine = useQuery<MyData, ApiError>({ queryKey: key, queryFn: ({ signal }) => apiFetch<MyData>(path, { signal, anonymous: true }) });
  const [note, setNote] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);

  /** One delete: the note says what went, the list is read again. */
  async function remove<T>(url: string, done: (answer: T) => string) {
    setBusy(true);
    setNote(null);
    setFailure(null);
    try {
      setNote(done(await apiFetch<T>(url, { method: 'DELETE', anonymous: true })));
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
      setAsking(false);
      await queries.invalidateQueries({ queryKey: key });
    }
  }

  const title = `What ${org.name}'s agents keep about you`;
  if (mine.isPending) return <Page title={title}><Loading /></Page>;
  if (mine.error?.status === 401) {
    const signIn = apiUrl(`/api/accounts/chat/login?next=${encodeURIComponent(window.location.href)}`);
    return (
      <Page title={title}>
        <p>Sign in with Discord to see and delete what {org.name}'s agents remember about you.</p>
        <a className="q-button q-button-primary" href={signIn}>Sign in with Discord</a>
      </Page>
    );
  }
  if (mine.error) return <Page title={title}>{refusal(mine.error)}</Page>;

  const { conversations, memories, profile } = mine.data;
  const empty = !conversations.length && !memories.length && !profile.relations.length;
  return (
    <Page title={title} actions={<Button variant="danger" onClick={() => setAsking(true)} disabled={busy || empty}>Delete everything</Button>}>
      {note && <p className="q-note" role="status">{note}</p>}
      {failure !== null && <ErrorNote error={failure} title="Not deleted" />}

      <Card title="Conversations">
        {conversations.length === 0 ? <EmptyState title="No conversations" /> : (
          <Table caption="Conversations" rows={conversations} rowKey={(c) => c.id} columns={[
            { header: 'Started', cell: (c) => when(c.created_at) },
            { header: 'Last activity', cell: (c) => when(c.updated_at) },
            { header: 'Messages', cell: 'last_seq', numeric: true },
            { header: 'Visibility', cell: 'visibility' },
            { header: 'State', cell: (c) => (c.ended_at ? 'ended' : 'open') },
            {
              header: 'Delete', cell: (c) => (
                <Button variant="danger" disabled={busy} aria-label={`Delete the conversation of ${new Date(c.created_at).toLocaleString()} (${plural(c.last_seq, 'message')})`}
                  onClick={() => remove(`${path}/conversations/${c.id}`, () => 'The conversation and its messages are deleted.')}>Delete</Button>
              ),
            },
          ]} />
        )}
      </Card>

      <Card title="Memories">
        {memories.length === 0 ? <EmptyState title="No memories" /> : (
          <Table caption="Memories" rows={memories} rowKey={(m) => m.id} columns={[
            { header: 'Memory', cell: 'content' },
            { header: 'Kind', cell: 'kind' },
            { header: 'Sensitivity', cell: 'sensitivity' },
            { header: 'Confidence', cell: (m) => m.confidence.toFixed(2), numeric: true },
            {
              header: 'Delete', cell: (m) => (
                <Button variant="danger" disabled={busy} aria-label={`Delete the memory: ${m.content}`}
                  onClick={() => remove(`${path}/memories/${m.id}`, () => 'The memory is deleted.')}>Delete</Button>
              ),
            },
          ]} />
        )}
      </Card>

      <Card title="Profile">
        <p className="q-hint">What the agents have learned about you, as relations. Delete everything removes them.</p>
        {profile.relations.length === 0 ? <EmptyState title="No profile relations" /> : (
          <Table caption="Profile relations" rows={profile.relations} rowKey={(r) => `${node(r.subject)} ${r.relation} ${node(r.object)}`} columns={[
            { header: 'Subject', cell: (r) => node(r.subject) },
            { header: 'Relation', cell: 'relation' },
            { header: 'Object', cell: (r) => node(r.object) },
            { header: 'Confidence', cell: (r) => r.confidence.toFixed(2), numeric: true },
          ]} />
        )}
      </Card>

      <ConfirmDialog open={asking} title="Delete everything?" confirmLabel="Delete everything" danger busy={busy}
        onCancel={() => setAsking(false)}
        onConfirm={() => remove<Deleted>(path, (d) => `Deleted ${plural(d.conversations, 'conversation')}, ${plural(d.memories, 'memory', 'memories')}, ${plural(d.relations, 'profile relation')} and ${plural(d.pending, 'pending action')}.`)}>
        <p>Every conversation, memory, profile relation and pending action {org.name}'s agents keep about you is deleted now. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}
