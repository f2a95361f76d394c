import { useRef, type KeyboardEvent } from 'react';

export interface Tab { id: string; label: string }

/**
 * Tabs (ARIA tablist; arrow keys move between them). The panel is the caller's: give it
 * `role="tabpanel"` and `aria-labelledby={tabId(current)}`.
 */
export function Tabs({ label, tabs, current, onChange }: { label: string; tabs: Tab[]; current: string; onChange: (id: string) => void }) {
  const list = useRef<HTMLDivElement>(null);
  const move = (e: KeyboardEvent, index: number) => {
    const next = e.key === 'ArrowRight' ? index + 1 : e.key === 'ArrowLeft' ? index - 1 : null;
    if (next === null) return;
    const tab = tabs[(next + tabs.length) % tabs.length]!;
    onChange(tab.id);
    list.current?.querySelector<HTMLButtonElement>(`#${tabId(tab.id)}`)?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className="q-tabs" ref={list}>
      {tabs.map((tab, i) => (
        <button key={tab.id} id={tabId(tab.id)} role="tab" type="button" className="q-tab" aria-selected={tab.id === current}
          tabIndex={tab.id === current ? 0 : -1} onClick={() => onChange(tab.id)} onKeyDown={(e) => move(e, i)}>
          {tab.label}
        </button>
      ))}
    </div>
  );
}

export const tabId = (id: string) => `tab-${id}`;
