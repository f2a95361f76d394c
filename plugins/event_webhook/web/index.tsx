// The event webhooks' dashboard page (/dashboard/events) and Overview card, built into web/dist/index.js and loaded
// by the dashboard at run time. React, @tanstack/react-query and @quad/web/sdk are the dashboard's own. Routes:
// plugins/event_webhook/routes.ts (README "Routes"). The destination URL is write-only: the API never shows it.
import { useState, type CSSProperties, type FormEvent } from 'react';
import {
  Button, Card, ConfirmDialog, EmptyState, ErrorNote, Field, Loading, OverviewSection, Page, Table, apiFetch,
  invalidateApi, useApi, useOrg, type PageProps,
} from '@quad/web/sdk';

interface Webhook {
  id: number; name: string; destination_set: boolean; events: string[]; enabled: boolean;
  last_result: null | { ok: boolean; at: string; event: string | null; error: string | null };
  created_at: string; updated_at: string;
}
interface EventKind { kind: string; module: string; module_on: boolean }
interface Listing { webhooks: Webhook[]; events: EventKind[]; limit: { use: number; value: number | null } }
interface TestAnswer { ok: boolean; error: string | null; webhook: Webhook }

const ok: CSSProperties = { color: 'var(--ok)' };
const listPath = (prefix: string) => `/api/dashboard/${prefix}/webhooks`;
const refresh = (prefix: string) => Promise.all([invalidateApi(listPath(prefix)), invalidateApi(`/api/dashboard/${prefix}/overview`)]);

function lastResult(h: Webhook) {
  if (!h.last_result) return 'Nothing sent yet';
  const when = new Date(h.last_result.at).toLocaleString();
  const what = h.last_result.event === 'event_webhook.test' ? 'test' : h.last_result.event ?? 'event';
  return h.last_result.ok ? `Delivered (${what}, ${when})` : `Failed (${what}, ${when}): ${h.last_result.error ?? 'no answer'}`;
}

/** The page at /dashboard/events (manifest pages.list[0].component). */
export function EventsPage(_props: PageProps) {
  const org = useOrg();
  const listing = useApi<Listing>(listPath(org.prefix));
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [asking, setAsking] = useState<Webhook | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [tested, setTested] = useState<{ name: string; answer: TestAnswer } | null>(null);
  // Said here, not in the form: saving an edit swaps the form back to adding.
  const [saved, setSaved] = useState<string | null>(null);

  async function act(what: () => Promise<void>) {
    setBusy(true); setError(null);
    try {
      await what();
      await refresh(org.prefix);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const test = (h: Webhook) => act(async () => {
    setTested(null);
    const answer = await apiFetch<TestAnswer>(`${listPath(org.prefix)}/${h.id}/test`, { method: 'POST' });
    setTested({ name: h.name, answer });
  });
  const toggle = (h: Webhook) => act(async () => {
    await apiFetch(`${listPath(org.prefix)}/${h.id}`, { method: 'PUT', body: { enabled: !h.enabled } });
  });
  const remove = (h: Webhook) => act(async () => {
    setAsking(null);
    await apiFetch(`${listPath(org.prefix)}/${h.id}`, { method: 'DELETE' });
    if (editing?.id === h.id) setEditing(null);
  });

  const data = listing.data;
  return (
    <Page title="Events">
      <p>Post the org's events (store orders, failed jobs, errors…) to Discord channels. Every event also stays on the Activity page.</p>
      {listing.isPending ? <Loading /> : listing.error ? <ErrorNote error={listing.error} /> : (
        <>
          <WebhookForm key={editing?.id ?? 'new'} webhook={editing} kinds={data!.events} full={data!.limit.value !== null && data!.limit.use >= data!.limit.value}
            onDone={() => setEditing(null)} onSaved={setSaved} />
          {saved && <p role="status" style={ok}>{saved}</p>}
          <Card title="Webhooks" actions={data!.limit.value !== null && <span className="q-hint">{data!.limit.use} of {data!.limit.value}</span>}>
            {error !== null && <ErrorNote error={error} title="That did not work" />}
            {tested && (
              tested.answer.ok
                ? <p role="status" style={ok}>Test message delivered to {tested.name}.</p>
                : <ErrorNote title={`The test message to ${tested.name} failed`} error={tested.answer.error ?? 'no answer'} />
            )}
            {data!.webhooks.length === 0
              ? <EmptyState title="No webhooks yet">Add one above with a Discord channel's webhook URL.</EmptyState>
              : (
                <Table caption="Webhooks" rows={data!.webhooks} rowKey={(h) => h.id} columns={[
                  { header: 'Name', cell: 'name' },
                  { header: 'Events', cell: (h) => h.events.join(', ') },
                  { header: 'On', cell: (h) => (h.enabled ? 'Yes' : 'No') },
                  { header: 'Last message', cell: (h) => (h.destination_set ? lastResult(h) : 'Destination unreadable: set it again') },
                  {
                    header: <span className="q-visually-hidden">Actions</span>,
                    cell: (h) => (
                      <span style={{ display: 'inline-flex', flexWrap: 'wrap', gap: 8 }}>
                        <Button onClick={() => test(h)} disabled={busy} aria-label={`Send a test to ${h.name}`}>Test</Button>
                        <Button onClick={() => setEditing(h)} aria-label={`Edit ${h.name}`}>Edit</Button>
                        <Button onClick={() => toggle(h)} disabled={busy} aria-label={`${h.enabled ? 'Turn off' : 'Turn on'} ${h.name}`}>{h.enabled ? 'Turn off' : 'Turn on'}</Button>
                        <Button variant="danger" onClick={() => setAsking(h)} aria-label={`Delete ${h.name}`}>Delete</Button>
                      </span>
                    ),
                  },
                ]} />
              )}
          </Card>
        </>
      )}
      <ConfirmDialog open={asking !== null} title={`Delete ${asking?.name ?? 'the webhook'}?`} confirmLabel="Delete webhook" danger busy={busy}
        onConfirm={() => asking && remove(asking)} onCancel={() => setAsking(null)}>
        <p>Its channel gets no more events; messages still queued for it are dropped.</p>
      </ConfirmDialog>
    </Page>
  );
}

/** Add a webhook, or change the one being edited (a blank URL keeps the stored one). */
function WebhookForm({ webhook, kinds, full, onDone, onSaved }: {
  webhook: Webhook | null; kinds: EventKind[]; full: boolean; onDone: () => void; onSaved: (said: string | null) => void;
}) {
  const org = useOrg();
  const [name, setName] = useState(webhook?.name ?? '');
  const [destination, setDestination] = useState('');
  const [events, setEvents] = useState<string[]>(webhook?.events ?? []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toggle = (kind: string) => setEvents((list) => (list.includes(kind) ? list.filter((k) => k !== kind) : [...list, kind]));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); onSaved(null);
    try {
      const body = { name: name.trim(), events, ...(destination.trim() && { destination: destination.trim() }) };
      if (webhook) {
        await apiFetch(`${listPath(org.prefix)}/${webhook.id}`, { method: 'PUT', body });
        onSaved(`Saved ${body.name}.`);
      } else {
        await apiFetch(listPath(org.prefix), { method: 'POST', body });
        onSaved(`Added ${body.name}.`);
        setName(''); setDestination(''); setEvents([]);
      }
      await refresh(org.prefix);
      if (webhook) onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const ready = name.trim() && events.length > 0 && (webhook || destination.trim());
  return (
    <Card title={webhook ? `Edit ${webhook.name}` : 'Add a webhook'}>
      <form onSubmit={submit} aria-label={webhook ? 'Edit webhook' : 'Add a webhook'}>
        <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required placeholder="Orders channel" />
        <Field label="Discord webhook URL" type="url" value={destination} onChange={(e) => setDestination(e.target.value)} maxLength={512}
          required={!webhook} autoComplete="off" placeholder="https://discord.com/api/webhooks/…"
          hint={webhook ? 'Stored and never shown again; leave blank to keep it' : 'Stored encrypted and never shown again'} />
        <fieldset className="q-field" style={{ border: 0, padding: 0, margin: '0 0 12px' }}>
          <legend className="q-label">Events to post</legend>
          {kinds.length === 0 ? <p className="q-hint">No module declares events.</p> : kinds.map((k) => (
            <label key={k.kind} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
              <input type="checkbox" checked={events.includes(k.kind)} onChange={() => toggle(k.kind)} />
              <code>{k.kind}</code>{!k.module_on && <span className="q-hint">({k.module} is off)</span>}
            </label>
          ))}
        </fieldset>
        <span style={{ display: 'inline-flex', gap: 8 }}>
          <Button type="submit" variant="primary" disabled={busy || !ready || (!webhook && full)}>{webhook ? 'Save' : 'Add webhook'}</Button>
          {webhook && <Button onClick={onDone}>Cancel</Button>}
        </span>
        {!webhook && full && <p className="q-hint">The org has as many webhooks as its limit allows.</p>}
      </form>
      {error !== null && <ErrorNote error={error} title={webhook ? 'Not saved' : 'Not added'} />}
    </Card>
  );
}

/** The module's card on Overview: webhooks, and those whose last message failed. */
export function EventsCard() {
  return (
    <OverviewSection module="event_webhook" what="Webhook counts">
      {(hooks) => (
        <p data-testid="events-card">
          {Number(hooks.enabled)} of {Number(hooks.webhooks)} webhooks on; {Number(hooks.failing)} failing.
        </p>
      )}
    </OverviewSection>
  );
}
