// Activity (spec "Dashboard client rules"): tabs Notifications (default), Errors, Changes, the tabs of modules that
// bring one (manifest pages.activityTabs, e.g. Knowledge runs, while the module is on), CI runs (`?tab=ci`, where
// the old `ci` address leads) and Job runs, each in `?tab=`.
import { useSearchParams } from 'react-router';
import { useApi } from '../sdk/query.js';
import { useOrg } from '../sdk/org.js';
import { Page } from '../sdk/ui/page.js';
import { Tabs, tabId } from '../sdk/ui/tabs.js';
import { BundleExport } from '../shell/plugin-bundles.js';
import { listingPath, moduleTabs, type Listing } from '../shell/listing.js';
import { ChangesTab } from './activity/changes.js';
import { CiTab } from './activity/ci.js';
import { ErrorsTab } from './activity/errors.js';
import { JobRunsTab } from './activity/job-runs.js';
import { NotificationsTab } from './activity/notifications.js';
import './activity.css';

const BEFORE = [
  { id: 'notifications', label: 'Notifications' },
  { id: 'errors', label: 'Errors' },
  { id: 'changes', label: 'Changes' },
];
const AFTER = [
  { id: 'ci', label: 'CI runs' },
  { id: 'job-runs', label: 'Job runs' },
];
const PANELS: Record<string, () => React.JSX.Element> = {
  notifications: NotificationsTab, errors: ErrorsTab, changes: ChangesTab, ci: CiTab, 'job-runs': JobRunsTab,
};

export function Activity() {
  const org = useOrg();
  const [params, setParams] = useSearchParams();
  const listing = useApi<Listing>(listingPath(org.prefix));
  const fromModules = moduleTabs(listing.data, 'activity_tabs');
  const tabs = [...BEFORE, ...fromModules.map(({ id, label }) => ({ id, label })), ...AFTER];
  const asked = params.get('tab');
  // A module's tab is known once the listing is read: until then its address waits rather than falling back.
  const tab = tabs.some((t) => t.id === asked) ? asked! : asked && listing.isPending ? null : 'notifications';
  const moduleTab = fromModules.find((t) => t.id === tab);
  const Panel = tab && !moduleTab ? PANELS[tab]! : null;
  return (
    <Page title="Activity">
      <Tabs label="Activity" tabs={tabs} current={tab ?? ''} onChange={(id) => setParams(id === 'notifications' ? {} : { tab: id }, { replace: true })} />
      {tab && (
        <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
          {moduleTab ? <BundleExport key={tab} entry={moduleTab.entry} name={moduleTab.component} label={`the ${moduleTab.label} tab of ${moduleTab.module}`} props={{}} />
            : Panel && <Panel key={tab} />}
        </div>
      )}
    </Page>
  );
}
