// The integrations (outside services) the service's modules declare, as GET /api/organizations/<org>/tokens lists
// them: shown by Tokens, through `tokensPath`; Explore's Integrations tab, where an officer connects a service (and
// Settings → Secrets), mark that answer stale.
import { Link } from 'react-router';
import { Table } from '../sdk/ui/table.js';
import { plural, StatusBadge } from './activity/format.js';
import './activity.css';

export interface Integration {
  key: string; title: string; description: string; module: string; connected: boolean; scopes: string[];
  tools: Record<string, string[]>; remote: boolean; remote_error: string | null; through: string[]; used_by: string[]; limits: string[];
}

/** The org's tokens, scopes and integrations. */
export const tokensPath = (org: string) => `/api/organizations/${org}/tokens`;

/** Where an officer connects a service. */
export function IntegrationsLink() {
  return <Link to="/explore?tab=integrations">Explore → Integrations</Link>;
}

/** How many tools it serves now; for a remote one, where they come from and why its server listed none. */
function ToolsCell({ integration: i }: { integration: Integration }) {
  const count = plural(Object.values(i.tools).flat().length, 'tool');
  if (!i.remote) return <>{count}</>;
  if (!i.connected) return <span className="q-muted">from its MCP server, once connected</span>;
  if (i.remote_error) return <><StatusBadge status="failed">MCP server failed</StatusBadge><div className="q-cell-text">{i.remote_error}</div></>;
  return <>{count} from its MCP server</>;
}

export function IntegrationsTable({ integrations }: { integrations: readonly Integration[] }) {
  return (
    <Table caption="Integrations" rows={integrations} rowKey={(i) => i.key} columns={[
      { header: 'Service', cell: (i) => <><div className="q-cell-title">{i.title}</div><div className="q-cell-text">{i.description}</div></> },
      { header: 'Connected', cell: (i) => <StatusBadge status={i.connected ? 'active' : 'skipped'}>{i.connected ? 'connected' : 'not connected'}</StatusBadge> },
      { header: 'Its scopes', cell: (i) => <span className="q-code">{i.scopes.join(', ') || '—'}</span> },
      { header: 'Reached through', cell: (i) => <span className="q-code">{i.through.join(', ') || '—'}</span> },
      { header: 'Used by', cell: (i) => i.used_by.join(', ') || '—' },
      { header: 'Tools', cell: (i) => <ToolsCell integration={i} /> },
    ]} />
  );
}
