// The sidebar: the org (initial in its accent color, and the switcher for officers of several orgs), the pages
// grouped by category (module pages only while the module is on), the signed-in officer and sign-out. It narrows
// to a 56 px rail of icons (sidebar-state.ts).
import { useId } from 'react';
import { NavLink } from 'react-router';
import { signOut } from '../sdk/api.js';
import { useOrg } from '../sdk/org.js';
import { initialOf } from './branding.js';
import { Icon } from './icons.js';
import type { NavGroup } from './listing.js';

export interface OrgChoice { id: number; prefix: string; name: string }

export function Sidebar({ groups, collapsed, onToggle, orgs, onSwitch, username }: {
  groups: NavGroup[]; collapsed: boolean; onToggle: () => void; orgs: OrgChoice[]; onSwitch: (prefix: string) => void; username: string;
}) {
  const org = useOrg();
  const switcherId = useId();
  return (
    <nav className="q-sidebar" data-collapsed={collapsed} aria-label="Dashboard">
      <div className="q-sidebar-org">
        <span className="q-org-initial" aria-hidden="true" data-testid="org-initial">{initialOf(org.name)}</span>
        <div className="q-sidebar-org-name q-rail-hidden">
          {orgs.length > 1 ? (
            <>
              <label htmlFor={switcherId} className="q-visually-hidden">Organisation</label>
              <select id={switcherId} className="q-control q-org-switcher" value={org.prefix} onChange={(e) => onSwitch(e.target.value)}>
                {orgs.map((o) => <option key={o.prefix} value={o.prefix}>{o.name}</option>)}
              </select>
            </>
          ) : <span className="q-org-name">{org.name}</span>}
        </div>
        <button type="button" className="q-sidebar-toggle" onClick={onToggle} aria-expanded={!collapsed} aria-controls="q-sidebar-pages"
          aria-keyshortcuts="Control+B Meta+B [" title={`${collapsed ? 'Expand' : 'Collapse'} the sidebar (Ctrl+B or [)`}>
          <span aria-hidden="true">{collapsed ? '»' : '«'}</span>
          <span className="q-visually-hidden">{collapsed ? 'Expand sidebar' : 'Collapse sidebar'}</span>
        </button>
      </div>
      <div id="q-sidebar-pages" className="q-sidebar-pages">
        {groups.map((group) => (
          <NavGroupList key={group.category} group={group} collapsed={collapsed} />
        ))}
      </div>
      <div className="q-sidebar-footer">
        <span className="q-sidebar-user q-rail-hidden">{username}</span>
        <button type="button" className="q-link-button" onClick={() => void signOut()} title="Sign out">
          <span className="q-rail-hidden">Sign out</span>
          <span className="q-rail-only" aria-hidden="true">⏻</span>
        </button>
      </div>
    </nav>
  );
}

function NavGroupList({ group, collapsed }: { group: NavGroup; collapsed: boolean }) {
  const headingId = useId();
  return (
    <div className="q-nav-group">
      <h2 id={headingId} className="q-nav-heading q-rail-hidden">{group.category}</h2>
      <ul aria-labelledby={headingId} className="q-nav-list">
        {group.items.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end={item.to === '/'} className="q-nav-link" title={collapsed ? item.title : undefined}>
              <Icon name={item.icon} title={item.title} />
              <span className="q-nav-label">{item.title}</span>
            </NavLink>
          </li>
        ))}
      </ul>
    </div>
  );
}
