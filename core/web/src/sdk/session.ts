// The officer's token pair. Kept in memory and in sessionStorage: a reload of the tab keeps the officer signed
// in, while another tab, another window or a closed tab does not see the tokens (sessionStorage is per tab and is
// dropped with it), and no cookie carries them, so no other site's request can use them. Whatever script runs
// in the page could read them, as it could use them from memory: the page runs only this origin's scripts (CSP).
export interface Tokens { access: string; refresh: string }

const KEY = 'platform.tokens';
const listeners = new Set<() => void>();

function stored(): Tokens | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    return typeof value?.access === 'string' && typeof value?.refresh === 'string' ? value : null;
  } catch {
    return null;
  }
}

let current: Tokens | null = stored();

export function getTokens(): Tokens | null {
  return current;
}

/** Replace the tokens (null: signed out) and tell every subscriber. */
export function setTokens(tokens: Tokens | null): void {
  current = tokens;
  if (tokens) sessionStorage.setItem(KEY, JSON.stringify(tokens));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

/** For useSyncExternalStore: called whenever the tokens change. */
export function subscribeTokens(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
