import { useId, type ReactNode } from 'react';

/** A titled section: `<Card title="Greetings" actions={<Button>…</Button>}>…</Card>`. */
export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children?: ReactNode; className?: string }) {
  const id = useId();
  return (
    <section className={['q-card', className].filter(Boolean).join(' ')} aria-labelledby={title ? id : undefined}>
      {(title || actions) && (
        <header className="q-card-header">
          {title && <h2 id={id} className="q-card-title">{title}</h2>}
          {actions && <div className="q-card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}
