// A pod's buttons: start or stop and restart (as its status allows), and terminate after a confirm (the pod and its
// record are deleted at the provider). Each answer refreshes the pods; a refusal shows the server's message.
import { useState } from 'react';
import { Button, ConfirmDialog, ErrorNote, useApiMutation } from '@quad/web/sdk';
import { actions, podPath, usePodsBase, type Pod } from './common.js';

type Action = 'start' | 'stop' | 'restart' | 'terminate';

/** What the status allows besides terminate: a running pod stops or restarts; one the provider lost does nothing. */
function powerActions(pod: Pod): Action[] {
  if (pod.status === 'RUNNING') return ['stop', 'restart'];
  return pod.status === 'GONE' ? [] : ['start'];
}

const LABEL: Record<Action, string> = { start: 'Start', stop: 'Stop', restart: 'Restart', terminate: 'Terminate' };

export function PodActions({ pod, onTerminated }: { pod: Pod; onTerminated?: () => void }) {
  const base = usePodsBase();
  const act = useApiMutation<{ action: Action }>('POST', `${podPath(base, pod.pod_id)}/action`, { invalidate: [`${base}/pods`] });
  const [confirming, setConfirming] = useState(false);
  const run = (action: Action) => act.mutate({ action });
  const terminate = () => act.mutate({ action: 'terminate' }, { onSuccess: () => { setConfirming(false); onTerminated?.(); } });

  return (
    <div>
      <span style={actions}>
        {powerActions(pod).map((a) => (
          <Button key={a} onClick={() => run(a)} disabled={act.isPending} aria-label={`${LABEL[a]} ${pod.name}`}>{LABEL[a]}</Button>
        ))}
        <Button variant="danger" onClick={() => { act.reset(); setConfirming(true); }} disabled={act.isPending} aria-label={`Terminate ${pod.name}`}>Terminate</Button>
      </span>
      {act.error && !confirming && <ErrorNote error={act.error} title="The provider did not do it" />}
      <ConfirmDialog open={confirming} title={`Terminate ${pod.name}?`} confirmLabel="Terminate pod" danger busy={act.isPending}
        onCancel={() => setConfirming(false)} onConfirm={terminate}>
        <p>The pod, its disk and its volume are deleted at the provider, with its sessions and connection records. This cannot be undone.</p>
        {act.error && <ErrorNote error={act.error} title="Not terminated" />}
      </ConfirmDialog>
    </div>
  );
}
