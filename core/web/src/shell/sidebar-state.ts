// The sidebar's width: full, or the 56 px rail. Toggled by its button, Ctrl+B / Cmd+B, or `[` (not while typing
// in a field), and kept in localStorage under platform.sidebar.
import { useCallback, useEffect, useState } from 'react';

const KEY = 'platform.sidebar';

/** Typing in a field: `[` is a character there, not a shortcut. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function useSidebar(): [collapsed: boolean, toggle: () => void] {
  const [collapsed, setCollapsed] = useState(() => localStorage.getItem(KEY) === 'collapsed');
  const toggle = useCallback(() => setCollapsed((c) => !c), []);

  useEffect(() => {
    localStorage.setItem(KEY, collapsed ? 'collapsed' : 'expanded');
  }, [collapsed]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey) return;
      const modifier = e.ctrlKey || e.metaKey;
      if (modifier && !e.shiftKey && e.key.toLowerCase() === 'b') {
        e.preventDefault();
        toggle();
      } else if (!modifier && e.key === '[' && !isTyping(e.target)) {
        e.preventDefault();
        toggle();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggle]);

  return [collapsed, toggle];
}
