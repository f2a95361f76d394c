// One pod (/dashboard/pods/<pod_id>): its facts and buttons, then tabs for who may use it, who connected, its
// sessions and its files.
import { useState, type ReactNode } from 'react';
import { Card, DashboardLink, ErrorNote, Loading, Page, Tabs, tabId, useApi, useDashboardNavigate } from '@quad/web/sdk';
import { AccessPanel } from './access.js';
import { hardware, podPath, usePodsBase, when, type Pod } from './common.js';
import { ConnectionsPanel } from './connections.js';
import { FilesPanel } from './files.js';
import { PodActions } from './pod-actions.js';
import { LIVE_STATUS_MS } from './pods-table.js';
import { SessionsPanel } from './sessions.js';
import { StatusBadge } from './status-badge.js';

const TABS = [
  { id: 'access', label: 'Access' }, { id: 'connections', label: 'Connections' },
  { id: 'sessions', label: 'Sessions' }, { id: 'files', label: 'Files' },
];
const PANELS: Record<string, (pod: Pod) => ReactNode> = {
  access: (pod) => <AccessPanel pod={pod} />,
  connections: (pod) => <ConnectionsPanel pod={pod} />,
  sessions: (pod) => <SessionsPanel pod={pod} />,
  files: (pod) => <FilesPanel pod={pod} />,
};
const back = <DashboardLink to="/pods">All pods</DashboardLink>;

export function PodDetail({ podId }: { podId: string }) {
  const base = usePodsBase();
  const go = useDashboardNavigate();
  const answer = useApi<Pod>(podPath(base, podId), { refetchInterval: LIVE_STATUS_MS });
  const [tab, setTab] = useState('access');
  const pod = answer.data;

  if (!pod) {
    return (
      <Page title="Pod" actions={back}>
        {answer.error ? <ErrorNote error={answer.error} title="Pod not loaded" /> : <Loading />}
      </Page>
    );
  }
  return (
    <Page title={`Pod ${pod.name}`} actions={back}>
      <Card title="This pod" actions={<PodActions pod={pod} onTerminated={() => go('/pods')} />}>
        <PodFacts pod={pod} />
      </Card>
      <Tabs label="Pod" tabs={TABS} current={tab} onChange={setTab} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">{PANELS[tab]!(pod)}</div>
    </Page>
  );
}

function PodFacts({ pod }: { pod: Pod }) {
  const facts: [string, ReactNode][] = [
    ['Status', <StatusBadge pod={pod} />],
    ['Hardware', hardware(pod)],
    ['Image', <code>{pod.image}</code>],
    ['Volume', pod.volume_in_gb ? `${pod.volume_in_gb} GB at ${pod.volume_mount_path}` : 'none'],
    ['SSH', pod.ssh ? <code>{pod.ssh.host}:{pod.ssh.port}</code> : 'only while running'],
    ['Environment', pod.env_names.length ? pod.env_names.join(', ') : 'none'],
    ['Pod id', <code>{pod.pod_id}</code>],
    ['Created', when(pod.created_at)],
  ];
  return (
    <dl className="q-facts" aria-label="Pod facts">
      {facts.map(([term, value]) => <div key={term} style={{ display: 'contents' }}><dt>{term}</dt><dd>{value}</dd></div>)}
    </dl>
  );
}
