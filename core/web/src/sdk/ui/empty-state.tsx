import type { ReactNode } from 'react';

/** What a page or list shows when it has nothing: a title, a line, and maybe an action. */
export function EmptyState({ title, children, action }: { title: ReactNode; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="q-empty">
      <p className="q-empty-title">{title}</p>
      {children && <div className="q-empty-text">{children}</div>}
      {action && <div className="q-empty-action">{action}</div>}
    </div>
  );
}
