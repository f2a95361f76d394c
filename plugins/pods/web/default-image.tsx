// The org's default pod image (PUT /settings pod_image): used when a create names no image; cleared, the
// deployment's PODHOST_POD_IMAGE is used, or, when the deployment sets none, each create must name its image.
import { useEffect, useState, type FormEvent } from 'react';
import { Button, Card, ErrorNote, Field, Loading, useApi, useApiMutation } from '@quad/web/sdk';
import { actions, ok, usePodsBase, type PodSettings } from './common.js';

export function DefaultImageCard() {
  const base = usePodsBase();
  const path = `${base}/settings`;
  const current = useApi<PodSettings>(path);
  const save = useApiMutation<{ pod_image: string | null }, PodSettings>('PUT', path, { invalidate: [path] });
  const [draft, setDraft] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const answer = current.data;
  useEffect(() => { if (answer) setDraft(answer.pod_image ?? ''); }, [answer]);

  if (current.isPending) return <Card title="Default image"><Loading /></Card>;
  if (current.error) return <Card title="Default image"><ErrorNote error={current.error} title="Settings not loaded" /></Card>;

  const send = (podImage: string | null) => {
    setDone(null);
    save.mutate({ pod_image: podImage }, { onSuccess: (s) => setDone(s.pod_image ? `New pods use ${s.pod_image}.` : s.default_image ? `New pods use the deployment's ${s.default_image}.` : 'No default image: each create must name one.') });
  };
  const submit = (e: FormEvent) => { e.preventDefault(); send(draft.trim() || null); };

  return (
    <Card title="Default image">
      <form onSubmit={submit} aria-label="Default image" className="q-form">
        <Field label="Org's pod image" value={draft} onChange={(e) => setDraft(e.target.value)} maxLength={500} placeholder={answer!.default_image ?? 'registry.example/podhost:2'}
          hint={<>Used when a create names no image. Empty: {answer!.default_image
            ? <>the deployment's <code>{answer!.default_image}</code></>
            : <>none, as the deployment sets no image (<code>PODHOST_POD_IMAGE</code>): each create must name one</>}.
            It must follow the pod image contract (sshd trusting the org's keys, podhost-login).</>} />
        <span style={actions}>
          <Button type="submit" variant="primary" disabled={save.isPending}>Save image</Button>
          {answer!.pod_image && <Button onClick={() => send(null)} disabled={save.isPending}>{answer!.default_image ? 'Use the deployment\'s' : 'Clear'}</Button>}
        </span>
      </form>
      {save.error && <ErrorNote error={save.error} title="Image not saved" />}
      {done && !save.error && <p role="status" style={ok}>{done}</p>}
    </Card>
  );
}
