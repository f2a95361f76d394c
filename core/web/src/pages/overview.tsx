// Overview: every section of GET /api/dashboard/<org>/overview (counts, open problems, CI, each module's section,
// recent changes and job runs), the trends of GET /trends?days= (7, 30 or 90 days; one chart per series; modules
// that are off have none) and the cards of the modules that bring one (manifest pages.overviewCard).
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { useApi } from '../sdk/query.js';
import { useOrg } from '../sdk/org.js';
import { DashboardLink } from '../sdk/navigation.js';
import { Card } from '../sdk/ui/card.js';
import { Field } from '../sdk/ui/field.js';
import { LineChart } from '../sdk/ui/line-chart.js';
import { Page } from '../sdk/ui/page.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { EmptyState } from '../sdk/ui/empty-state.js';
import { Table } from '../sdk/ui/table.js';
import { BundleExport } from '../shell/plugin-bundles.js';
import { listingPath, type Listing } from '../shell/listing.js';
import { changeColumns, type ChangeItem } from './activity/changes.js';
import { RepoRuns, runState, type CiAnswer } from './activity/ci.js';
import { StatusBadge, When } from './activity/format.js';
import { jobRunColumns, type JobRunItem } from './activity/job-runs.js';
import type { NotificationItem } from './activity/notifications.js';
import './activity.css';

interface OverviewAnswer {
  org: { id: number; prefix: string; name: string };
  generated_at: string;
  counts: { open_problems: number; open_events: number; open_errors: number; errors_24h: number; failed_jobs_24h: number; changes_7d: number };
  problems: NotificationItem[];
  ci: CiAnswer;
  modules: Record<string, Record<string, unknown>>;
  recent: { changes: ChangeItem[]; job_runs: JobRunItem[] };
}
interface TrendsAnswer { days: number; since: string; until: string; dates: string[]; series: { module: string; key: string; title: string; values: number[] }[]; unavailable: string[] }

const COUNTS: { key: keyof OverviewAnswer['counts']; label: string; to: string }[] = [
  { key: 'open_problems', label: 'Open problems', to: '/activity' },
  { key: 'open_events', label: 'Open events', to: '/activity' },
  { key: 'open_errors', label: 'Open errors', to: '/activity?tab=errors' },
  { key: 'errors_24h', label: 'Errors, last 24 h', to: '/activity?tab=errors' },
  { key: 'failed_jobs_24h', label: 'Failed jobs, last 24 h', to: '/activity?tab=job-runs' },
  { key: 'changes_7d', label: 'Changes, last 7 days', to: '/activity?tab=changes' },
];
const PERIODS = [7, 30, 90];

export function Overview() {
  const org = useOrg();
  const listing = useApi<Listing>(listingPath(org.prefix));
  const overview = useApi<OverviewAnswer>(`/api/dashboard/${org.prefix}/overview`);
  const modules = listing.data ? [...listing.data.included.map((m) => ({ ...m, enabled: true })), ...listing.data.modules] : [];
  const titleOf = (name: string) => (name === 'core' ? 'Activity' : modules.find((m) => m.name === name)?.title ?? name);
  const cards = modules.filter((m) => m.enabled && m.pages?.overview_card);

  return (
    <Page title="Overview">
      {overview.isPending ? <Loading /> : overview.error ? <ErrorNote error={overview.error} /> : (
        <>
          <dl className="q-counts" aria-label="Counts">
            {COUNTS.map((c) => (
              <div key={c.key} className="q-count">
                <dt>{c.label}</dt>
                <dd><DashboardLink to={c.to} aria-label={`${c.label}: ${overview.data.counts[c.key]}`}>{overview.data.counts[c.key].toLocaleString('en')}</DashboardLink></dd>
              </div>
            ))}
          </dl>
          <Problems problems={overview.data.problems} />
        </>
      )}
      <Trends titleOf={titleOf} />
      {overview.data && (
        <>
          <ModuleSections sections={overview.data.modules} titleOf={titleOf} />
          <Ci ci={overview.data.ci} />
          <Card title="Recent changes" actions={<DashboardLink to="/activity?tab=changes">All changes</DashboardLink>}>
            {overview.data.recent.changes.length === 0 ? <p className="q-hint">No changes yet.</p>
              : <Table caption="Recent changes" rows={overview.data.recent.changes} rowKey={(c) => c.id} columns={changeColumns} />}
          </Card>
          <Card title="Recent job runs" actions={<DashboardLink to="/activity?tab=job-runs">All job runs</DashboardLink>}>
            {overview.data.recent.job_runs.length === 0 ? <p className="q-hint">No job runs yet.</p>
              : <Table caption="Recent job runs" rows={overview.data.recent.job_runs} rowKey={(r) => r.id} columns={jobRunColumns} />}
          </Card>
        </>
      )}
      {listing.error ? <ErrorNote error={listing.error} /> : cards.length > 0 && (
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

function Problems({ problems }: { problems: NotificationItem[] }) {
  return (
    <Card title="Open problems" actions={<DashboardLink to="/activity">All notifications</DashboardLink>}>
      {problems.length === 0 ? <p className="q-hint">No open problems.</p> : (
        <ul className="q-plain-list">
          {problems.map((p) => (
            <li key={p.id}>
              <strong>{p.title}</strong>{p.message && <> — {p.message}</>} <span className="q-hint">(<When at={p.raised_at} />{p.occurrences > 1 ? `, ${p.occurrences} times` : ''})</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function Trends({ titleOf }: { titleOf: (module: string) => string }) {
  const org = useOrg();
  const [params, setParams] = useSearchParams();
  const asked = Number(params.get('days'));
  const days = PERIODS.includes(asked) ? asked : 30;
  const trends = useApi<TrendsAnswer>(`/api/dashboard/${org.prefix}/trends?days=${days}`);
  const groups = new Map<string, TrendsAnswer['series']>();
  for (const s of trends.data?.series ?? []) groups.set(s.module, [...(groups.get(s.module) ?? []), s]);
  return (
    <Card title="Trends" actions={(
      <Field as="select" label="Period" value={String(days)} onChange={(e) => setParams(e.target.value === '30' ? {} : { days: e.target.value }, { replace: true })}>
        {PERIODS.map((d) => <option key={d} value={d}>Last {d} days</option>)}
      </Field>
    )}>
      {trends.isPending ? <Loading /> : trends.error ? <ErrorNote error={trends.error} /> : (
        <>
          {trends.data.unavailable.length > 0 && (
            <p className="q-note q-note-error" role="alert">No trends from {trends.data.unavailable.map(titleOf).join(', ')} right now.</p>
          )}
          {[...groups].map(([module, series]) => (
            <section key={module} aria-label={`${titleOf(module)} trends`}>
              <h3 className="q-section-title">{titleOf(module)}</h3>
              <div className="q-chart-grid">
                {series.map((s) => <LineChart key={s.key} title={s.title} dates={trends.data.dates} values={s.values} />)}
              </div>
            </section>
          ))}
        </>
      )}
    </Card>
  );
}

/** Each module's section, whatever its shape: numbers and words as a list of terms, lists as lists. */
function ModuleSections({ sections, titleOf }: { sections: OverviewAnswer['modules']; titleOf: (module: string) => string }) {
  const names = Object.keys(sections);
  if (names.length === 0) return null;
  return (
    <div className="q-card-grid" style={{ marginBottom: 16 }}>
      {names.map((name) => (
        <Card key={name} title={titleOf(name)}>
          {sections[name]!.unavailable === true
            ? <p className="q-note q-note-error" role="alert">This section could not be read right now.</p>
            : <SectionValue value={sections[name]} />}
        </Card>
      ))}
    </div>
  );
}

const words = (key: string) => { const s = key.replace(/_/g, ' '); return s[0]!.toUpperCase() + s.slice(1); };

function SectionValue({ value }: { value: unknown }): ReactNode {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return value.toLocaleString('en');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="q-hint">none</span>;
    return (
      <ul className="q-plain-list">
        {value.slice(0, 20).map((item, i) => {
          const named = item && typeof item === 'object' ? (item as Record<string, unknown>) : null;
          const label = named && (named.title ?? named.name ?? named.label);
          return <li key={i}>{typeof label === 'string' ? label : <SectionValue value={item} />}</li>;
        })}
      </ul>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return (
    <dl className="q-section-list">
      {entries.map(([k, v]) => <div key={k} style={{ display: 'contents' }}><dt>{words(k)}</dt><dd><SectionValue value={v} /></dd></div>)}
    </dl>
  );
}

function Ci({ ci }: { ci: CiAnswer }) {
  return (
    <Card title="CI" actions={<DashboardLink to="/activity?tab=ci">All CI runs</DashboardLink>}>
      {ci.repos.length === 0 ? <p className="q-hint">No repos listed. <DashboardLink to="/activity?tab=ci">List repos</DashboardLink> to follow their workflow runs.</p> : (
        <ul className="q-plain-list">
          {ci.repos.map((repo) => {
            const last = repo.runs[0];
            return (
              <li key={repo.repo}>
                <strong>{repo.repo}</strong>{' '}
                {repo.error ? <RepoRuns repo={repo} /> : last
                  ? <><StatusBadge status={runState(last)} /> <a href={last.url} target="_blank" rel="noreferrer">{last.name}</a> on {last.branch ?? '—'} (<When at={last.started_at} />)</>
                  : <span className="q-hint">no runs yet</span>}
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
