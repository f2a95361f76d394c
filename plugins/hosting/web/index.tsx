// The hosting module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time (React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own). The Hosting page (/dashboard/hosting; the old
// `apps` address opens it): apps, the register form, one app's deploys, roll back and pod; and the Overview card.
import { useState } from 'react';
import { DashboardLink, OverviewSection, Page, type PageProps } from '@quad/web/sdk';
import { AppDetail } from './app-detail.js';
import { AppList } from './app-list.js';
import { RegisterForm } from './register-form.js';

/** The page at /dashboard/hosting (manifest pages.list[0].component). */
export function HostingPage(_props: PageProps) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title="Hosting">
      <p>
        Apps run as pods on the org's own provider account (<DashboardLink to="/explore?tab=integrations">Explore → Integrations</DashboardLink>, hostprov).
        Each deploy puts a tag or digest of the app's image on its pod; it is live once its health check passes, and a deploy that never
        passes rolls back to the last healthy one.
      </p>
      <AppList onOpen={setOpen} />
      {open !== null && <AppDetail key={open} name={open} onClose={() => setOpen(null)} onDeleted={() => setOpen(null)} />}
      <RegisterForm />
    </Page>
  );
}

/** The module's card on Overview: apps, live ones, unhealthy ones and deploys in progress. */
export function HostingCard() {
  return (
    <OverviewSection module="hostprov" what="Hosting counts">
      {(s) => (
        <p data-testid="hosting-card">
          {Number(s.apps)} apps, {Number(s.live)} live, {Number(s.unhealthy)} unhealthy; {Number(s.deploying)} deploying.
        </p>
      )}
    </OverviewSection>
  );
}
