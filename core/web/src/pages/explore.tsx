// Explore (spec "Dashboard client rules"), one tab each, named in the address (`?tab=`):
// - Modules: Add is disabled until the module's needs are connected, and says which are missing; Remove asks first,
//   turns the module off and keeps its data; core modules are Included.
// - Integrations: a connect form per outside service the modules declare (explore-integrations.tsx): its fields,
//   Save, Clear (asks first), Test with the result, connected or not, the modules that need it.
// - Submodules: the tab of the module that brings one (manifest pages.exploreTabs with id `submodules`, while it is
//   on), else a placeholder. A module's other Explore tabs come after these three.
import { useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { apiFetch, ApiError } from '../sdk/api.js';
import { useOrg } from '../sdk/org.js';
import { apiKey, queryClient, useApi } from '../sdk/query.js';
import { Button } from '../sdk/ui/button.js';
import { ConfirmDialog } from '../sdk/ui/dialog.js';
import { EmptyState } from '../sdk/ui/empty-state.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { Page } from '../sdk/ui/page.js';
import { Tabs, tabId } from '../sdk/ui/tabs.js';
import { BundleExport } from '../shell/plugin-bundles.js';
import { listingPath, moduleTabs, type IncludedModule, type Listing, type ModuleView } from '../shell/listing.js';
import { IntegrationsTab } from './explore-integrations.js';

const TABS = [{ id: 'modules', label: 'Modules' }, { id: 'integrations', label: 'Integrations' }, { id: 'submodules', label: 'Submodules' }];

export function Explore() {
  const org = useOrg();
  const [params, setParams] = useSearchParams();
  // The Modules tab's answer (one cached copy): it also names the tabs the modules that are on bring.
  const listing = useApi<Listing>(listingPath(org.prefix));
  const fromModules = moduleTabs(listing.data, 'explore_tabs');
  const tabs = [
    ...TABS.map((core) => fromModules.find((m) => m.id === core.id) ?? core),
    ...fromModules.filter((m) => !TABS.some((core) => core.id === m.id)),
  ].map(({ id, label }) => ({ id, label }));
  const asked = params.get('tab');
  // A module's tab is known once the listing is read: until then its address waits rather than falling back.
  const tab = tabs.some((t) => t.id === asked) ? asked! : asked && listing.isPending ? null : 'modules';
  const moduleTab = fromModules.find((t) => t.id === tab);
  return (
    <Page title="Explore">
      <Tabs label="Explore" tabs={tabs} current={tab ?? ''} onChange={(id) => setParams(id === 'modules' ? {} : { tab: id }, { replace: true })} />
      {tab && (
        <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
          {moduleTab ? <BundleExport key={tab} entry={moduleTab.entry} name={moduleTab.component} label={`the ${moduleTab.label} tab of ${moduleTab.module}`} props={{}} />
            : tab === 'modules' ? <ModulesTab /> : tab === 'integrations' ? <IntegrationsTab />
              // Until the listing says whether a module brings it, the placeholder is not shown.
              : listing.isPending ? <Loading /> : <SubmodulesTab />}
        </div>
      )}
    </Page>
  );
}

function ModulesTab() {
  const org = useOrg();
  const listing = useApi<Listing>(listingPath(org.prefix));
  const [removing, setRemoving] = useState<ModuleView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ module: string; error: unknown } | null>(null);

  if (listing.isPending) return <Loading />;
  if (listing.error) return <ErrorNote error={listing.error} />;
  const { modules, categories, included } = listing.data;

  const turn = async (mod: ModuleView, on: boolean) => {
    setBusy(mod.name);
    setFailure(null);
    try {
      // The answer is the new listing: the sidebar and this page show it at once.
      const next = await apiFetch<Listing>(`/api/organizations/${org.prefix}/modules`, { method: 'PUT', body: { modules: { [mod.name]: on } } });
      queryClient.setQueryData(apiKey(listingPath(org.prefix)), { modules: next.modules, categories: next.categories, included: next.included });
      setRemoving(null);
    } catch (error) {
      setFailure({ module: mod.name, error });
      setRemoving(null);
      if (error instanceof ApiError && error.status === 409) void listing.refetch();
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      {modules.length === 0 && <EmptyState title="No optional modules">This service runs no optional module. Operators enable plugins in its settings.</EmptyState>}
      {categories.map((category) => (
        <section key={category} className="q-explore-category" aria-label={category}>
          <h2 className="q-section-title">{category}</h2>
          <ul className="q-module-list">
            {modules.filter((m) => m.category === category).map((m) => (
              <ModuleRow key={m.name} module={m} busy={busy === m.name}
                failure={failure?.module === m.name ? failure.error : null}
                onAdd={() => void turn(m, true)} onRemove={() => { setFailure(null); setRemoving(m); }} />
            ))}
          </ul>
        </section>
      ))}
      {included.length > 0 && (
        <section className="q-explore-category" aria-label="Always on">
          <h2 className="q-section-title">Always on</h2>
          <ul className="q-module-list">
            {included.map((m) => <IncludedRow key={m.name} module={m} />)}
          </ul>
        </section>
      )}
      <ConfirmDialog open={removing !== null} title={`Remove ${removing?.title ?? ''}?`} confirmLabel="Remove" danger busy={busy !== null}
        onConfirm={() => removing && void turn(removing, false)} onCancel={() => setRemoving(null)}>
        <p>{removing?.title} turns off for {org.name}: its pages, routes and tools stop. Its data is kept, and adding it again brings it back.</p>
      </ConfirmDialog>
    </>
  );
}

function SubmodulesTab() {
  return (
    <EmptyState title="No submodules yet">
      Submodules are shared domains an org subscribes to, such as a university's pages or career feeds. They arrive with
      the Submodules module: once this service runs it, they are listed here.
    </EmptyState>
  );
}

function ModuleRow({ module: m, busy, failure, onAdd, onRemove }: {
  module: ModuleView; busy: boolean; failure: unknown; onAdd: () => void; onRemove: () => void;
}) {
  const titleId = useId();
  const reasonId = useId();
  const missing = m.needs.filter((n) => !n.optional && !n.connected);
  return (
    <li className="q-module" aria-labelledby={titleId}>
      <div className="q-module-text">
        <h3 id={titleId} className="q-module-title">{m.title}{m.enabled && <span className="q-badge q-badge-on">On</span>}</h3>
        <p className="q-module-description">{m.description}</p>
        {m.needs.length > 0 && (
          <ul className="q-needs" aria-label={`${m.title} needs`}>
            {m.needs.map((n) => (
              <li key={n.key} className={n.connected ? 'q-need q-need-met' : 'q-need'}>
                {n.label}{n.optional ? ' (optional)' : ''}: {n.connected ? 'connected' : 'not connected'}
              </li>
            ))}
          </ul>
        )}
        {failure !== null && <ErrorNote title={`${m.title} could not be switched`} error={failure} />}
      </div>
      <div className="q-module-action">
        {m.enabled
          ? <Button variant="danger" onClick={onRemove} disabled={busy} aria-label={`Remove ${m.title}`}>Remove</Button>
          : <>
            <Button variant="primary" onClick={onAdd} disabled={busy || !m.ready} aria-label={`Add ${m.title}`}
              aria-describedby={missing.length ? reasonId : undefined}>Add</Button>
            {missing.length > 0 && <p id={reasonId} className="q-hint">Needs {missing.map((n) => n.label).join(', ')} first</p>}
          </>}
      </div>
    </li>
  );
}

function IncludedRow({ module: m }: { module: IncludedModule }) {
  const titleId = useId();
  return (
    <li className="q-module q-module-included" aria-labelledby={titleId}>
      <div className="q-module-text">
        <h3 id={titleId} className="q-module-title">{m.title}</h3>
        <p className="q-module-description">{m.description}</p>
      </div>
      <div className="q-module-action"><span className="q-badge">Included</span></div>
    </li>
  );
}
