// Register an app (POST /apps): name, image repository (no tag: each deploy names one), GPU or CPU, ports, env,
// secret env (names of org secrets hostprov.env_<key>, set on Settings → Secrets) and the health check. The server
// checks every rule; its error names the field.
import { useState, type FormEvent } from 'react';
import { Button, Card, DashboardLink, Field, SaveOutcome, apiFetch } from '@quad/web/sdk';
import { row, useAppsBase, useRefresh } from './common.js';

/** `8080/http, 9000/tcp` → ports; a bare number is http. */
function parsePorts(text: string) {
  return text.split(/[\s,]+/).filter(Boolean).map((p) => {
    const [port, protocol = 'http'] = p.split('/');
    return { port: Number(port), protocol };
  });
}

/** `NAME=value` lines → an object (blank lines skipped). */
function parsePairs(text: string): Record<string, string> {
  return Object.fromEntries(text.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
    const at = l.indexOf('=');
    return at < 0 ? [l, ''] : [l.slice(0, at).trim(), l.slice(at + 1).trim()];
  }));
}

export function RegisterForm() {
  const base = useAppsBase();
  const refresh = useRefresh();
  const [f, setF] = useState({
    name: '', image: '', compute: 'cpu', gpuType: 'NVIDIA RTX A4000', gpuCount: '1', cpuFlavor: 'cpu3c', vcpus: '2',
    ports: '8080/http', env: '', secretEnv: '', healthPort: '8080', healthPath: '/', expected: '200', deadline: '600',
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setSaved(null);
    try {
      await apiFetch(base, {
        method: 'POST',
        body: {
          name: f.name.trim(), image: f.image.trim(),
          ...(f.compute === 'gpu' ? { gpu: { type_id: f.gpuType.trim(), count: Number(f.gpuCount) } } : { cpu: { flavor: f.cpuFlavor.trim(), vcpus: Number(f.vcpus) } }),
          ports: parsePorts(f.ports), env: parsePairs(f.env), secret_env: parsePairs(f.secretEnv),
          health: { port: Number(f.healthPort), path: f.healthPath.trim() || '/', expected_status: Number(f.expected), deadline_seconds: Number(f.deadline) },
        },
      });
      await refresh();
      setSaved(`Registered ${f.name.trim()}: deploy a tag to start it.`);
      setF({ ...f, name: '', image: '', env: '', secretEnv: '' });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Register an app">
      <form onSubmit={submit} aria-label="Register an app">
        <div style={row}>
          <Field label="Name" value={f.name} onChange={set('name')} required maxLength={40} hint="Lowercase letters, digits and dashes (site)" />
          <Field label="Image" value={f.image} onChange={set('image')} required maxLength={255} placeholder="ghcr.io/acm/site" hint="The repository without a tag: each deploy names the tag or digest" />
        </div>
        <div style={row}>
          <Field as="select" label="Compute" value={f.compute} onChange={set('compute')}>
            <option value="cpu">CPU</option>
            <option value="gpu">GPU</option>
          </Field>
          {f.compute === 'gpu' ? <>
            <Field label="GPU type" value={f.gpuType} onChange={set('gpuType')} required />
            <Field label="GPU count" type="number" min={1} max={8} value={f.gpuCount} onChange={set('gpuCount')} required />
          </> : <>
            <Field label="CPU flavor" value={f.cpuFlavor} onChange={set('cpuFlavor')} required />
            <Field label="vCPUs" type="number" min={1} max={128} value={f.vcpus} onChange={set('vcpus')} required hint="A power of two" />
          </>}
        </div>
        <Field label="Ports" value={f.ports} onChange={set('ports')} required hint="port/protocol, comma separated; protocol http or tcp (8080/http, 9000/tcp)" />
        <div style={row}>
          <Field as="textarea" label="Environment" value={f.env} onChange={set('env')} rows={3} hint="NAME=value, one a line" />
          <Field as="textarea" label="Secret environment" value={f.secretEnv} onChange={set('secretEnv')} rows={3}
            hint={<>NAME=key, one a line: the value is the org secret hostprov.env_&lt;key&gt; (<DashboardLink to="/settings?tab=secrets">Settings → Secrets</DashboardLink>), read at each deploy</>} />
        </div>
        <div style={row}>
          <Field label="Health port" type="number" min={1} max={65535} value={f.healthPort} onChange={set('healthPort')} required hint="One of the http ports" />
          <Field label="Health path" value={f.healthPath} onChange={set('healthPath')} required />
          <Field label="Expected status" type="number" min={100} max={599} value={f.expected} onChange={set('expected')} required />
          <Field label="Deadline (seconds)" type="number" min={30} max={7200} value={f.deadline} onChange={set('deadline')} required hint="A deploy not healthy by then fails and rolls back" />
        </div>
        <Button type="submit" variant="primary" disabled={busy}>Register app</Button>
      </form>
      <SaveOutcome error={error} saved={saved} failedTitle="Not registered" />
    </Card>
  );
}
