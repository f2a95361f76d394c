// A core page whose content comes with a later change: its route, title and sidebar entry exist already.
import { Page } from '../sdk/ui/page.js';
import { EmptyState } from '../sdk/ui/empty-state.js';

export function PlaceholderPage({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <Page title={title}>
      {children ?? <EmptyState title={`${title} is on its way`}>This page is not built yet.</EmptyState>}
    </Page>
  );
}
