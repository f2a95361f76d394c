// The knowledge module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time.
// React, @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import map). It exports the page
// /dashboard/knowledge (tabs: Sources, Crawls, Upload, Runs, Test search, Settings; one file each) and
// KnowledgeRunsTab, which Activity shows as Knowledge runs (manifest pages.activityTabs).
import { useState, type ReactNode } from 'react';
import { Card, Page, Tabs, tabId, type PageProps } from '@quad/web/sdk';
import { useCrawlRuns } from './crawl-run.js';
import { CrawlsTab } from './crawls.js';
import { KnowledgeRunsTab } from './runs.js';
import { SearchCard } from './search.js';
import { SettingsCard } from './settings.js';
import { ReaderCard, SourcesCard } from './sources.js';
import { UploadCard } from './uploads.js';

export { KnowledgeRunsTab };

const TABS = [
  { id: 'sources', label: 'Sources' }, { id: 'crawls', label: 'Crawls' }, { id: 'upload', label: 'Upload' },
  { id: 'runs', label: 'Runs' }, { id: 'search', label: 'Test search' }, { id: 'settings', label: 'Settings' },
];

/** The page at /dashboard/knowledge (manifest pages.list[0].component). */
export function KnowledgePage(_props: PageProps) {
  const [tab, setTab] = useState('sources');
  const [reading, setReading] = useState<string | null>(null);
  // Here, not in the Crawls tab: a crawl followed there finishes (and refreshes the lists) while another tab is shown.
  const crawlRuns = useCrawlRuns();
  const panels: Record<string, () => ReactNode> = {
    sources: () => (
      <>
        {/* Above the list, which may be long: the officer opened it from a row. */}
        {reading !== null && <div style={{ marginBottom: 16 }}><ReaderCard key={reading} sourceKey={reading} onClose={() => setReading(null)} /></div>}
        <SourcesCard onRead={setReading} onDeleted={(key) => setReading((r) => (r === key ? null : r))} />
      </>
    ),
    crawls: () => <CrawlsTab runs={crawlRuns} />,
    upload: () => <UploadCard />,
    runs: () => <Card title="Run log"><KnowledgeRunsTab /></Card>,
    search: () => <SearchCard />,
    settings: () => <SettingsCard />,
  };
  return (
    <Page title="Knowledge">
      <Tabs label="Knowledge" tabs={TABS} current={tab} onChange={setTab} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">{panels[tab]!()}</div>
    </Page>
  );
}
