// The submodules module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time.
// React and @quad/web/sdk are the dashboard's own (its import map). It exports SubmodulesTab, which fills Explore's
// Submodules tab while the module is on (manifest pages.exploreTabs): every submodule as a card (submodule-card.tsx),
// the org's use of the limit submodules.subscriptions, Subscribe, and End subscription after a dialog. Routes:
// routes/dashboard.ts (README "Routes").
import { useState } from 'react';
import { ConfirmDialog, EmptyState, ErrorNote, Loading, UsageBar, apiFetch, useApi, useOrg } from '@quad/web/sdk';
import { plural, refreshAfterChange, subscriptionPath, useSubmodulesBase, type Catalog, type Submodule } from './common.js';
import { SubmoduleCard, type Outcome } from './submodule-card.js';

interface Subscribed { shared_pages: { added: number; updated: number; disabled: number } | null }

/** Explore's Submodules tab (manifest pages.exploreTabs[0].component), rendered without props. */
export function SubmodulesTab() {
  const org = useOrg();
  const base = useSubmodulesBase();
  const list = useApi<Catalog>(base);
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ name: string } & Outcome | null>(null);
  const [ending, setEnding] = useState<Submodule | null>(null);

  async function change(s: Submodule, subscribe: boolean) {
    setBusy(s.name); setOutcome(null);
    try {
      const done = await apiFetch<Subscribed>(subscriptionPath(base, s.name), { method: subscribe ? 'PUT' : 'DELETE' });
      const pages = subscribe && done.shared_pages?.added ? ` ${plural(done.shared_pages.added, 'shared page')} added.` : '';
      // Read again first, so the note shows beside the new state.
      await refreshAfterChange(org.prefix);
      setOutcome({ name: s.name, note: subscribe ? `Subscribed to ${s.title}.${pages}` : `Subscription to ${s.title} ended.` });
    } catch (error) {
      setOutcome({ name: s.name, error });
      // A full limit or a change made elsewhere: show the numbers as they are now.
      void list.refetch();
    } finally {
      setBusy(null); setEnding(null);
    }
  }

  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorNote error={list.error} title="Submodules not loaded" />;
  const { submodules, limit } = list.data;
  return (
    <>
      <p className="q-hint">
        Shared domains {org.name} can subscribe to, such as a university or careers: their public pages in the org's
        knowledge, live answers from their sites, and ready-made feeds.
      </p>
      <div className="q-form-actions" style={{ marginBottom: 16, maxWidth: 480 }}>
        <strong>Subscriptions</strong>
        <div style={{ flex: 1 }}><UsageBar label="Subscriptions" use={limit.use} value={limit.value} /></div>
      </div>
      {submodules.length === 0 ? (
        <EmptyState title="No submodules">This service loads no submodule package (its setting SUBMODULES_PACKAGES).</EmptyState>
      ) : (
        <div className="q-card-grid" style={{ gridTemplateColumns: 'repeat(auto-fill, minmax(400px, 1fr))' }}>
          {submodules.map((s) => (
            <SubmoduleCard key={s.name} submodule={s} busy={busy !== null} outcome={outcome?.name === s.name ? outcome : null}
              onSubscribe={() => void change(s, true)} onEnd={() => { setOutcome(null); setEnding(s); }} />
          ))}
        </div>
      )}
      <ConfirmDialog open={ending !== null} title={`End the subscription to ${ending?.title ?? ''}?`} confirmLabel="End subscription" danger
        busy={busy !== null} onCancel={() => setEnding(null)} onConfirm={() => ending && void change(ending, false)}>
        <p>
          {org.name}'s knowledge search stops finding {ending?.title}'s shared pages and its feed presets are no longer
          offered. Feeds already made from them keep running. Subscribing again brings it back.
        </p>
      </ConfirmDialog>
    </>
  );
}
