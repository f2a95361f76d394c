// The storefront member's sign-in: the identity-provider session token and the email it proved, per org. Kept in
// memory and in sessionStorage (`platform.store.<org>`), as the dashboard keeps the officer's tokens: a reload of
// the tab keeps the member signed in, another tab or a closed one does not, and no cookie carries the token.
export interface MemberSession { token: string; email: string }

const key = (org: string) => `platform.store.${org}`;
const inMemory = new Map<string, MemberSession | null>();

export function getMemberSession(org: string): MemberSession | null {
  if (inMemory.has(org)) return inMemory.get(org)!;
  try {
    const value = JSON.parse(sessionStorage.getItem(key(org)) ?? 'null');
    const session = typeof value?.token === 'string' && typeof value?.email === 'string' ? value as MemberSession : null;
    inMemory.set(org, session);
    return session;
  } catch {
    return null;
  }
}

export function setMemberSession(org: string, session: MemberSession | null): void {
  inMemory.set(org, session);
  try {
    if (session) sessionStorage.setItem(key(org), JSON.stringify(session));
    else sessionStorage.removeItem(key(org));
  } catch {
    // Storage refused (private mode): the session lives in memory for this page.
  }
}
