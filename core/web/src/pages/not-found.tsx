import { Link } from 'react-router';
import { Page } from '../sdk/ui/page.js';
import { EmptyState } from '../sdk/ui/empty-state.js';

export function NotFound() {
  return (
    <Page title="Page not found">
      <EmptyState title="There is no such page" action={<Link to="/">Open Overview</Link>}>
        The address may be old, or the page belongs to a module this service does not run.
      </EmptyState>
    </Page>
  );
}

/** A module's page while the module is off for the org: Explore switches it on. */
export function ModuleOff({ title, module }: { title: string; module: string }) {
  return (
    <Page title={title}>
      <EmptyState title={`${module} is off for this org`} action={<Link className="q-button q-button-primary" to="/explore">Open Explore</Link>}>
        This page belongs to the {module} module. Add the module in Explore to use it.
      </EmptyState>
    </Page>
  );
}
