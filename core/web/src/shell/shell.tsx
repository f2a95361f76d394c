// The signed-in dashboard: the officer (GET /api/auth/me), the org they work on, its branding and modules, the
// sidebar, and the page of the address (a core page, an old address redirected, or a module's page).
import { useEffect, useState, type CSSProperties } from 'react';
import { Navigate, Route, Routes, useLocation, useParams, useSearchParams } from 'react-router';
import { prefetchApi, useApi } from '../sdk/query.js';
import { OrgContext, type Branding, type CurrentOrg } from '../sdk/org.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { Page } from '../sdk/ui/page.js';
import { signOut } from '../sdk/api.js';
import { Button } from '../sdk/ui/button.js';
import { Activity } from '../pages/activity.js';
import { Explore } from '../pages/explore.js';
import { Overview } from '../pages/overview.js';
import { Tokens } from '../pages/tokens.js';
import { Settings } from '../pages/settings.js';
import { Superadmin } from '../pages/superadmin.js';
import { ModuleOff, NotFound } from '../pages/not-found.js';
import { accentOf, brandingPath, contrastOn } from './branding.js';
import { findPage, listingPath, navGroups, type Listing } from './listing.js';
import { BundleExport } from './plugin-bundles.js';
import { redirectOf } from './routes.js';
import { Sidebar, type OrgChoice } from './sidebar.js';
import { useSidebar } from './sidebar-state.js';

export interface Me { chat_user_id: string; username: string; superadmin: boolean; orgs: OrgChoice[] }

const ORG_KEY = 'platform.org';

/** The org named in the address, else the one chosen last (it may no longer be the officer's: `me` decides). */
function rememberedOrg(): string | null {
  return new URLSearchParams(window.location.search).get('org') ?? localStorage.getItem(ORG_KEY);
}

export function Shell() {
  // The org's branding and modules load together with `me`, not after it (a reload shows the page sooner).
  useState(() => {
    const org = rememberedOrg();
    if (org && /^[A-Za-z0-9_-]{1,64}$/.test(org)) for (const path of [brandingPath(org), listingPath(org)]) void prefetchApi(path);
  });
  const me = useApi<Me>('/api/auth/me');
  if (me.isPending) return <main className="q-signin" id="content"><Loading /></main>;
  if (me.error) return <main className="q-signin" id="content"><ErrorNote error={me.error} /></main>;
  if (me.data.orgs.length === 0) {
    return (
      <main className="q-signin" id="content">
        <div className="q-signin-box">
          <h1>No org yet</h1>
          <p>No org has you as an officer. An org's officers are the holders of its officer role on its Discord server.</p>
          <Button onClick={() => void signOut()}>Sign out</Button>
        </div>
      </main>
    );
  }
  return <OrgShell me={me.data} />;
}

/** The org the officer works on: `?org=<prefix>` in the address, else the last one chosen, else the first. */
function useCurrentOrg(orgs: OrgChoice[]): [OrgChoice, (prefix: string) => void] {
  const [params, setParams] = useSearchParams();
  const find = (prefix: string | null) => orgs.find((o) => o.prefix.toLowerCase() === prefix?.toLowerCase());
  const [prefix, setPrefix] = useState(() => (find(rememberedOrg()) ?? find(localStorage.getItem(ORG_KEY)) ?? orgs[0]!).prefix);
  const choose = (next: string) => setPrefix(next);
  // Remembered for the next visit (and loaded with `me` then).
  useEffect(() => localStorage.setItem(ORG_KEY, prefix), [prefix]);
  // An org named in the address becomes the choice, and leaves the address.
  useEffect(() => {
    const named = find(params.get('org'));
    if (!params.has('org')) return;
    if (named) choose(named.prefix);
    const rest = new URLSearchParams(params);
    rest.delete('org');
    setParams(rest, { replace: true });
  });
  return [find(prefix) ?? orgs[0]!, choose];
}

function OrgShell({ me }: { me: Me }) {
  const [chosen, choose] = useCurrentOrg(me.orgs);
  const [collapsed, toggle] = useSidebar();
  const branding = useApi<Branding>(brandingPath(chosen.prefix));
  const listing = useApi<Listing>(listingPath(chosen.prefix));
  const accent = accentOf(branding.data);
  const org: CurrentOrg = { id: chosen.id, prefix: chosen.prefix, name: chosen.name, accent, branding: branding.data ?? null };
  const style = { '--accent': accent, '--accent-contrast': contrastOn(accent) } as CSSProperties;
  return (
    <OrgContext.Provider value={org}>
      <div className="q-app" style={style} data-collapsed={collapsed}>
        <a href="#content" className="q-skip">Skip to content</a>
        <Sidebar groups={navGroups(listing.data, me.superadmin)} collapsed={collapsed} onToggle={toggle} orgs={me.orgs} onSwitch={choose} username={me.username} />
        <main className="q-main" id="content" tabIndex={-1}>
          <Pages listing={listing.data} listingError={listing.error} superadmin={me.superadmin} />
        </main>
      </div>
    </OrgContext.Provider>
  );
}

function Pages({ listing, listingError, superadmin }: { listing: Listing | undefined; listingError: unknown; superadmin: boolean }) {
  const location = useLocation();
  const redirect = redirectOf(location);
  if (redirect) return <Navigate to={redirect} replace />;
  return (
    <Routes>
      <Route index element={<Overview />} />
      <Route path="explore" element={<Explore />} />
      <Route path="activity" element={<Activity />} />
      <Route path="tokens" element={<Tokens />} />
      <Route path="settings" element={<Settings />} />
      <Route path="superadmin" element={<Superadmin allowed={superadmin} />} />
      <Route path=":page/*" element={<ModulePage listing={listing} listingError={listingError} />} />
    </Routes>
  );
}

/** A module's page: shown while the module is on, with a way to Explore while it is off. */
function ModulePage({ listing, listingError }: { listing: Listing | undefined; listingError: unknown }) {
  const { page: path = '', '*': subpath = '' } = useParams();
  if (listingError) return <Page title="Page"><ErrorNote error={listingError} /></Page>;
  if (!listing) return <Loading />;
  const found = findPage(listing, path);
  if (!found) return <NotFound />;
  if (!found.enabled) return <ModuleOff title={found.page.title} module={found.module.title} />;
  return <BundleExport key={`${found.entry}#${found.page.component}`} entry={found.entry} name={found.page.component} label={found.page.title} props={{ subpath }} />;
}
