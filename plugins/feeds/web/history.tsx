// One feed's history (GET /feeds/<key>/history): its last 50 runs and the last 50 items it posted or recorded,
// newest first (the service keeps no more).
import { Button, Card, EmptyState, ErrorNote, Loading, Table, useApi } from '@quad/web/sdk';
import { bad, feedPath, useFeedsBase, when, type History, type Item } from './common.js';

const STATUS: Record<Item['status'], string> = { recorded: 'Recorded (not posted)', new: 'Waiting to post', posted: 'Posted' };
const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

export function HistoryCard({ feedKey, onClose }: { feedKey: string; onClose: () => void }) {
  const base = useFeedsBase();
  const history = useApi<History>(`${feedPath(base, feedKey)}/history`);
  const data = history.data;
  return (
    <Card title={`History of ${feedKey}`} actions={<Button onClick={onClose}>Close</Button>}>
      {history.isPending ? <Loading /> : history.error ? <ErrorNote error={history.error} title="History not loaded" /> : data && (
        <>
          {data.runs.length === 0 ? <EmptyState title="No runs yet">Run now starts one; the schedule runs the feed every few hours.</EmptyState> : (
            <Table caption={`Runs of ${feedKey}`} showCaption rows={data.runs} rowKey={(r) => r.id} columns={[
              { header: 'When', cell: (r) => when(r.at) },
              { header: 'Started by', cell: (r) => (r.trigger === 'manual' ? 'Run now' : 'Schedule') },
              { header: 'Found', numeric: true, cell: 'found' },
              { header: 'New', numeric: true, cell: 'new' },
              { header: 'Posted', numeric: true, cell: 'posted' },
              { header: 'Duration', numeric: true, cell: (r) => duration(r.duration_ms) },
              { header: 'Error or note', cell: (r) => (r.error ? <span style={bad}>{r.error}</span> : r.note ?? '') },
            ]} />
          )}
          {data.items.length > 0 && (
            <div style={{ marginTop: 16 }}>
              <Table caption={`Items of ${feedKey}`} showCaption rows={data.items} rowKey={(i) => i.key} columns={[
                { header: 'Item', cell: (i) => (/^https?:\/\//i.test(i.url) ? <a href={i.url} target="_blank" rel="noopener noreferrer">{i.title}</a> : i.title) },
                { header: 'Status', cell: (i) => STATUS[i.status] },
                { header: 'Seen', cell: (i) => when(i.seen_at) },
                { header: 'Posted', cell: (i) => when(i.posted_at) },
              ]} />
            </div>
          )}
        </>
      )}
    </Card>
  );
}
