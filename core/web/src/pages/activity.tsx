// Activity (spec "Dashboard client rules"): tabs Notifications (default), Errors, Changes, CI runs (`?tab=ci`, where
// the old `ci` address leads) and Job runs, each in `?tab=`.
import { useSearchParams } from 'react-router';
import { Page } from '../sdk/ui/page.js';
import { Tabs, tabId } from '../sdk/ui/tabs.js';
import { ChangesTab } from './activity/changes.js';
import { CiTab } from './activity/ci.js';
import { ErrorsTab } from './activity/errors.js';
import { JobRunsTab } from './activity/job-runs.js';
import { NotificationsTab } from './activity/notifications.js';
import './activity.css';

const TABS = [
  { id: 'notifications', label: 'Notifications' },
  { id: 'errors', label: 'Errors' },
  { id: 'changes', label: 'Changes' },
  { id: 'ci', label: 'CI runs' },
  { id: 'job-runs', label: 'Job runs' },
];
const PANELS: Record<string, () => React.JSX.Element> = {
  notifications: NotificationsTab, errors: ErrorsTab, changes: ChangesTab, ci: CiTab, 'job-runs': JobRunsTab,
};

export function Activity() {
  const [params, setParams] = useSearchParams();
  const tab = TABS.some((t) => t.id === params.get('tab')) ? params.get('tab')! : 'notifications';
  const Panel = PANELS[tab]!;
  return (
    <Page title="Activity">
      <Tabs label="Activity" tabs={TABS} current={tab} onChange={(id) => setParams(id === 'notifications' ? {} : { tab: id }, { replace: true })} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
        <Panel key={tab} />
      </div>
    </Page>
  );
}
