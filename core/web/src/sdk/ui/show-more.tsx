import { useState, type ReactNode } from 'react';
import { Button } from './button.js';

/**
 * Long lists show `step` rows (the spec: 100) and a button for the next ones:
 * `<ShowMore items={rows}>{(shown) => <Table rows={shown} … />}</ShowMore>`.
 */
export function ShowMore<T>({ items, step = 100, children }: { items: readonly T[]; step?: number; children: (shown: readonly T[]) => ReactNode }) {
  const [count, setCount] = useState(step);
  const shown = items.length > count ? items.slice(0, count) : items;
  const left = items.length - shown.length;
  return (
    <>
      {children(shown)}
      {left > 0 && (
        <div className="q-show-more">
          <Button onClick={() => setCount((c) => c + step)}>Show more ({left} left)</Button>
        </div>
      )}
    </>
  );
}
