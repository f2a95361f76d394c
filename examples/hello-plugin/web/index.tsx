// The hello module's dashboard pages, built into web/dist/index.js (`npm run build`, or @quad/web/build's
// buildPluginPages) and loaded by the dashboard at run time. React, @tanstack/react-query and @quad/web/sdk are
// the dashboard's own (its import map): only this file's code is in the bundle.
import { useState } from 'react';
import { EmptyState, ErrorNote, Field, Loading, Page, ShowMore, Table, useApi, useOrg, type PageProps } from '@quad/web/sdk';

interface Greeting { id: number; name: string; message: string; created_at: string }

/** The org's greetings (GET /api/hello/<org>/greetings). */
function useGreetings() {
  const org = useOrg();
  return useApi<{ greetings: Greeting[] }>(`/api/hello/${org.prefix}/greetings`);
}

/** The page at /dashboard/hello (manifest: pages.list[0].component). */
export function GreetingsPage(_props: PageProps) {
  const org = useOrg();
  const greetings = useGreetings();
  const [filter, setFilter] = useState('');
  const shown = (greetings.data?.greetings ?? []).filter((g) => g.name.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <Page title="Greetings">
      <p>Greetings left for {org.name} by its apps and agents (a machine token with <code>hello:write</code>).</p>
      <Field label="Filter by name" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Ada" />
      {greetings.isPending ? <Loading /> : greetings.error ? <ErrorNote error={greetings.error} /> : shown.length === 0
        ? <EmptyState title={filter ? 'No greeting matches' : 'No greetings yet'}>An app leaves one with POST /api/hello/{org.prefix}/greetings.</EmptyState>
        : (
          <ShowMore items={shown}>
            {(rows) => (
              <Table caption="Greetings" rows={rows} rowKey={(g) => g.id} columns={[
                { header: 'Name', cell: 'name' },
                { header: 'Message', cell: 'message' },
                { header: 'Left', cell: (g) => new Date(g.created_at).toLocaleString() },
              ]} />
            )}
          </ShowMore>
        )}
    </Page>
  );
}

/** The module's card on Overview (manifest: pages.overviewCard). */
export function GreetingsCard() {
  const greetings = useGreetings();
  if (greetings.isPending) return <Loading />;
  if (greetings.error) return <ErrorNote error={greetings.error} />;
  const [latest] = greetings.data.greetings;
  return (
    <p data-testid="hello-card">
      {greetings.data.greetings.length} greeting{greetings.data.greetings.length === 1 ? '' : 's'}
      {latest ? `; the latest: ${latest.message}` : ''}
    </p>
  );
}
