import { useEffect, type ReactNode } from 'react';

/** A page's frame: its heading (and the tab's title) and its actions. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Quad`;
  }, [title]);
  return (
    <div className="q-page">
      <header className="q-page-header">
        <h1 className="q-page-title">{title}</h1>
        {actions && <div className="q-page-actions">{actions}</div>}
      </header>
      {children}
    </div>
  );
}
