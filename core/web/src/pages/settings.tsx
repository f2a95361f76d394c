// Settings (spec "Dashboard client rules"): General, Branding, Secrets, and Limits (read-only, grouped by who pays).
// The tab is in the address (`?tab=`), so a link can open one.
import { useSearchParams } from 'react-router';
import { Page } from '../sdk/ui/page.js';
import { Tabs, tabId } from '../sdk/ui/tabs.js';
import { GeneralTab } from './settings/general.js';
import { BrandingTab } from './settings/branding.js';
import { SecretsTab } from './settings/secrets.js';
import { LimitsTab } from './settings/limits.js';

const TABS = [
  { id: 'general', label: 'General' }, { id: 'branding', label: 'Branding' },
  { id: 'secrets', label: 'Secrets' }, { id: 'limits', label: 'Limits' },
];

export function Settings() {
  const [params, setParams] = useSearchParams();
  const tab = TABS.some((t) => t.id === params.get('tab')) ? params.get('tab')! : 'general';
  return (
    <Page title="Settings">
      <Tabs label="Settings" tabs={TABS} current={tab} onChange={(id) => setParams(id === 'general' ? {} : { tab: id }, { replace: true })} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
        {tab === 'general' ? <GeneralTab /> : tab === 'branding' ? <BrandingTab /> : tab === 'secrets' ? <SecretsTab /> : <LimitsTab />}
      </div>
    </Page>
  );
}
