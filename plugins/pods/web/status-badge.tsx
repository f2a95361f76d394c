// A pod's live status as the provider tells it: RUNNING stands out; UNKNOWN says why it could not be asked.
import type { Pod } from './common.js';

export function StatusBadge({ pod }: { pod: Pod }) {
  return (
    <>
      <span className={pod.status === 'RUNNING' ? 'q-badge q-badge-on' : 'q-badge'} style={{ marginLeft: 0 }} data-testid="pod-status">{pod.status}</span>
      {pod.status === 'GONE' && <div className="q-hint">The provider no longer has it: terminate removes the record.</div>}
      {pod.status_reason && <div className="q-hint">{pod.status_reason}</div>}
    </>
  );
}
