// Settings → Limits (read-only): each limit of the modules that are on, with the org's use, grouped by who pays
// (spec "Limits": org, metered, shared). Only the superadmin changes them (Superadmin → Limits).
import { useOrg } from '../../sdk/org.js';
import { useApi } from '../../sdk/query.js';
import { Card } from '../../sdk/ui/card.js';
import { EmptyState } from '../../sdk/ui/empty-state.js';
import { ErrorNote, Loading } from '../../sdk/ui/notes.js';
import { Table } from '../../sdk/ui/table.js';
import { UsageBar } from '../../sdk/ui/usage-bar.js';

export interface LimitEntry {
  key: string; module: string; kind: 'count' | 'rate'; window: 'minute' | 'hour' | 'day' | null; value: number | null;
  source: 'override' | 'setting' | 'default'; default: number | null; use: number; paid_by: 'org' | 'metered' | 'shared';
  integrations: string[]; description: string; resets_at: string | null; near_limit: boolean;
}

export const PAYERS: { id: LimitEntry['paid_by']; title: string; text: string }[] = [
  { id: 'org', title: 'Paid by the org', text: 'The org\'s own data and apps: how many it keeps.' },
  { id: 'metered', title: 'Metered', text: 'Use of a shared service, counted in a window.' },
  { id: 'shared', title: 'Shared', text: 'Content made once for every org.' },
];

const SOURCES: Record<LimitEntry['source'], string> = { override: 'set by the superadmin', setting: 'the service\'s setting', default: 'the module\'s default' };

export function LimitsTab() {
  const org = useOrg();
  const answer = useApi<{ limits: LimitEntry[] }>(`/api/organizations/${org.prefix}/limits`);
  if (answer.isPending) return <Loading />;
  if (answer.error) return <ErrorNote error={answer.error} />;
  const { limits } = answer.data;
  if (limits.length === 0) return <EmptyState title="No limits">None of the modules that are on has a limit.</EmptyState>;
  return (
    <>
      <p className="q-hint">Limits are set by the service; ask its superadmin to change one. A bar turns red at 80 %.</p>
      {PAYERS.filter((p) => limits.some((l) => l.paid_by === p.id)).map((payer) => (
        <Card key={payer.id} title={payer.title}>
          <p className="q-module-description">{payer.text}</p>
          <Table caption={payer.title} rowKey={(l) => l.key} rows={limits.filter((l) => l.paid_by === payer.id)} columns={[
            { header: 'Limit', cell: (l) => <><div>{l.description}</div><div className="q-code q-hint">{l.key}</div></> },
            { header: 'Counts', cell: (l) => (l.kind === 'rate' ? `Use per ${l.window}` : 'How many are kept') },
            { header: 'Use / limit', cell: (l) => <UsageBar label={`${l.key} use`} use={l.use} value={l.value} near={l.near_limit} /> },
            { header: 'From', cell: (l) => SOURCES[l.source] },
            { header: 'Resets', cell: (l) => (l.resets_at ? new Date(l.resets_at).toLocaleString() : '') },
          ]} />
        </Card>
      ))}
    </>
  );
}
