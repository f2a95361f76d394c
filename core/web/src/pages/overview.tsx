// Overview: for now the cards of the modules that bring one (manifest pages.overviewCard); the sections of
// GET /api/dashboard/<org>/overview come with the Overview page's change.
import { useApi } from '../sdk/query.js';
import { useOrg } from '../sdk/org.js';
import { Card } from '../sdk/ui/card.js';
import { Page } from '../sdk/ui/page.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { EmptyState } from '../sdk/ui/empty-state.js';
import { BundleExport } from '../shell/plugin-bundles.js';
import { listingPath, type Listing } from '../shell/listing.js';

export function Overview() {
  const org = useOrg();
  const listing = useApi<Listing>(listingPath(org.prefix));
  const cards = listing.data
    ? [...listing.data.included.map((m) => ({ ...m, enabled: true })), ...listing.data.modules]
      .filter((m) => m.enabled && m.pages?.overview_card)
    : [];
  return (
    <Page title="Overview">
      {listing.isPending ? <Loading /> : listing.error ? <ErrorNote error={listing.error} /> : cards.length === 0
        ? <EmptyState title="Nothing to show yet">Modules with an Overview card show it here once they are on.</EmptyState>
        : (
          <div className="q-card-grid">
            {cards.map((m) => (
              <Card key={m.name} title={m.title}>
                <BundleExport entry={m.pages!.entry} name={m.pages!.overview_card!} label={`the ${m.title} card`} props={{}} />
              </Card>
            ))}
          </div>
        )}
    </Page>
  );
}
