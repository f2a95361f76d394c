// Superadmin (superadmins only; the API refuses everyone else anyway): Orgs, Limits, Health, Audit and Errors of
// every org. The tab is in the address (`?tab=`).
import { useSearchParams } from 'react-router';
import { EmptyState } from '../sdk/ui/empty-state.js';
import { Page } from '../sdk/ui/page.js';
import { Tabs, tabId } from '../sdk/ui/tabs.js';
import { OrgsTab } from './superadmin/orgs.js';
import { OverridesTab } from './superadmin/limits.js';
import { HealthTab } from './superadmin/health.js';
import { AuditTab, ErrorsTab } from './superadmin/logs.js';

const TABS = [
  { id: 'orgs', label: 'Orgs' }, { id: 'limits', label: 'Limits' }, { id: 'health', label: 'Health' },
  { id: 'audit', label: 'Audit' }, { id: 'errors', label: 'Errors' },
];

export function Superadmin({ allowed }: { allowed: boolean }) {
  const [params, setParams] = useSearchParams();
  if (!allowed) {
    return (
      <Page title="Superadmin">
        <EmptyState title="Superadmins only">This page is for the service's superadmins (the SYS_ADMIN setting). Your account is not one of them.</EmptyState>
      </Page>
    );
  }
  const tab = TABS.some((t) => t.id === params.get('tab')) ? params.get('tab')! : 'orgs';
  return (
    <Page title="Superadmin">
      <Tabs label="Superadmin" tabs={TABS} current={tab} onChange={(id) => setParams(id === 'orgs' ? {} : { tab: id }, { replace: true })} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
        {tab === 'orgs' ? <OrgsTab /> : tab === 'limits' ? <OverridesTab /> : tab === 'health' ? <HealthTab />
          : tab === 'audit' ? <AuditTab /> : <ErrorsTab />}
      </div>
    </Page>
  );
}
