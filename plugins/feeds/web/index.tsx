// The feeds module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time. React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import map). Two pages, one per kind, each
// with the same parts (one file each): Job alerts (/dashboard/job-alerts, repo_jobs; the old `alerts` address opens
// it) and Hackathons (/dashboard/hackathons), and the Overview card. Routes: routes.ts (README "Routes").
import { useState } from 'react';
import { DashboardLink, OverviewSection, Page, type PageProps } from '@quad/web/sdk';
import { KINDS, type Feed, type Kind } from './common.js';
import { FeedForm } from './feed-form.js';
import { FeedList } from './feed-list.js';
import { useFeedRuns } from './feed-runs.js';
import { HistoryCard } from './history.js';
import { Presets } from './presets.js';

/** The page at /dashboard/job-alerts (manifest pages.list[0].component). */
export function JobAlertsPage(_props: PageProps) {
  return <FeedsPage kind="repo_jobs" />;
}

/** The page at /dashboard/hackathons (manifest pages.list[1].component). */
export function HackathonsPage(_props: PageProps) {
  return <FeedsPage kind="hackathons" />;
}

function FeedsPage({ kind }: { kind: Kind }) {
  const [editing, setEditing] = useState<Feed | null>(null);
  const [history, setHistory] = useState<string | null>(null);
  const runs = useFeedRuns();
  return (
    <Page title={KINDS[kind].title}>
      <p>
        {KINDS[kind].intro} Each feed posts to one channel's webhook every few hours; its first run only records what
        is listed then. Submodules the org subscribes to (<DashboardLink to="/explore?tab=submodules">Explore → Submodules</DashboardLink>) offer
        ready-made feeds.
      </p>
      <FeedForm key={editing?.key ?? 'new'} kind={kind} feed={editing} onDone={() => setEditing(null)} />
      <Presets kind={kind} />
      <FeedList kind={kind} runs={runs} onEdit={setEditing} onHistory={setHistory}
        onDeleted={(key) => { setHistory((h) => (h === key ? null : h)); setEditing((f) => (f?.key === key ? null : f)); }} />
      {history !== null && <HistoryCard key={history} feedKey={history} onClose={() => setHistory(null)} />}
    </Page>
  );
}

/** The module's card on Overview: feeds of each kind, failing ones and posts. */
export function FeedsCard() {
  return (
    <OverviewSection module="feeds" what="Feed counts">
      {(s) => (
        <p data-testid="feeds-card">
          {Number(s.job_alerts)} job alert and {Number(s.hackathons)} hackathon feeds; {Number(s.failing)} failing; {Number(s.posts)} posts.
        </p>
      )}
    </OverviewSection>
  );
}
