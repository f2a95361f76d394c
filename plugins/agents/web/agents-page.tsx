// The officers' Agents page (/dashboard/agents): the org's agent tokens and their scopes, how long conversations are
// kept, and how much the agents keep, in numbers. Nothing of any member: officers have no route to agent data (spec
// "Authentication"); members see theirs on their own page (my-data.tsx).
import { apiUrl, Card, DashboardLink, EmptyState, ErrorNote, Loading, Page, Table, useApi, useOrg, type PageProps } from '@quad/web/sdk';

interface TokenRecord { id: number; name: string; kind: string; scopes: string[]; revoked: boolean; expires_at: string | null; last_used_at: string | null }
interface Stats {
  retention_days: number; members: number; conversations: number; messages: number; memories: number; sensitive_memories: number;
  profile_relations: number; pending_actions: number;
}

/** The scopes an agent's token needs for a whole turn: its memory here, and the org's knowledge. */
const AGENT_SCOPES = ['agents:read', 'agents:write', 'knowledge:read'];
const isAgentToken = (t: TokenRecord) => !t.revoked && t.scopes.some((s) => s.startsWith('agents:'));
const stateOf = (t: TokenRecord) => (t.expires_at && Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active');
const when = (at: string | null) => (at ? <time dateTime={at} title={at}>{new Date(at).toLocaleString()}</time> : 'never');

export function AgentsPage(_props: PageProps) {
  const memberPage = `/agents/${useOrg().prefix}/me`;
  return (
    <Page title="Agents">
      <p className="q-hint">
        Agents keep their memory of conversations with members here. Officers see only the numbers; each member sees and
        deletes what is kept about them on their own page, <a href={apiUrl(memberPage)}>{memberPage}</a> (they sign in with Discord).
      </p>
      <TokensCard />
      <KeptCard />
    </Page>
  );
}

function TokensCard() {
  const org = useOrg();
  const answer = useApi<{ tokens: TokenRecord[] }>(`/api/organizations/${org.prefix}/tokens`);
  const tokens = answer.data?.tokens.filter(isAgentToken) ?? [];
  const make = <DashboardLink to="/tokens">Make one on the Tokens page</DashboardLink>;
  return (
    <Card title="Agent tokens">
      <p className="q-hint">An agent needs a token of kind agent with the scopes {AGENT_SCOPES.map((s, i) => <span key={s}>{i ? ', ' : ''}<code>{s}</code></span>)}. {make}.</p>
      {answer.isPending ? <Loading /> : answer.error ? <ErrorNote error={answer.error} title="Tokens not loaded" /> : tokens.length === 0
        ? <EmptyState title="No agent token yet">Tokens with an agents scope are listed here.</EmptyState>
        : (
          <Table caption="Agent tokens" rows={tokens} rowKey={(t) => t.id} columns={[
            { header: 'Name', cell: 'name' },
            { header: 'Kind', cell: 'kind' },
            { header: 'Scopes', cell: (t) => t.scopes.join(', ') },
            { header: 'State', cell: stateOf },
            { header: 'Last used', cell: (t) => when(t.last_used_at) },
          ]} />
        )}
    </Card>
  );
}

function KeptCard() {
  const org = useOrg();
  const stats = useApi<Stats>(`/api/agents/${org.prefix}/stats`);
  if (stats.isPending) return <Card title="What the agents keep"><Loading /></Card>;
  if (stats.error) return <Card title="What the agents keep"><ErrorNote error={stats.error} title="Numbers not loaded" /></Card>;
  const s = stats.data;
  const rows = [
    { what: 'Members with data', count: s.members },
    { what: 'Conversations', count: s.conversations },
    { what: 'Messages', count: s.messages },
    { what: 'Memories', count: s.memories },
    { what: 'Sensitive memories (encrypted)', count: s.sensitive_memories },
    { what: 'Profile relations', count: s.profile_relations },
    { what: 'Pending actions waiting', count: s.pending_actions },
  ];
  return (
    <Card title="What the agents keep">
      <p data-testid="retention">Conversations idle for <strong>{s.retention_days} days</strong> are deleted by <code>agents.prune</code> (daily), with their messages; expired memories too. The deployment sets this (<code>AGENT_RETENTION_DAYS</code>).</p>
      <Table caption="Counts" rows={rows} rowKey={(r) => r.what} columns={[
        { header: 'What', cell: 'what' },
        { header: 'Count', cell: (r) => r.count.toLocaleString('en'), numeric: true },
      ]} />
    </Card>
  );
}
