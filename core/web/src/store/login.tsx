// /store/<org>/login: the storefront member's sign-in. The identity provider's sign-in (hosted by the provider or
// the org's site) sends the member here with its session token in the address's fragment
// (`#session_token=<JWT>&email=<address>`; a fragment never reaches a server or its logs). The page takes the token
// out of the address at once, and `POST /api/points/<org>/member_login {email}` checks that the token proves that
// email; then the member is signed in (member-session.ts) and goes to the store.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../sdk/api.js';
import { Button } from '../sdk/ui/button.js';
import { Field } from '../sdk/ui/field.js';
import { ErrorNote } from '../sdk/ui/notes.js';
import { getMemberSession, setMemberSession } from './member-session.js';
import { memberLoginPath, storeFetch } from './store-api.js';

/** The token and email the identity provider handed over in the fragment, read once (and removed from the address). */
function takeHandoff(): { token: string | null; email: string } {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const token = params.get('session_token');
  if (window.location.hash) history.replaceState(null, '', window.location.pathname + window.location.search);
  return { token, email: params.get('email') ?? '' };
}

// Read before the first render, so the token is out of the address (and the history) at once.
const firstHandoff = takeHandoff();

function loginError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.reason === 'member_login_unverified') return 'Your sign-in does not prove this email. Use the email you signed in with.';
    if (err.reason === 'token_expired' || err.status === 401) return 'Your sign-in has expired. Sign in with the identity provider again.';
    if (err.status === 404) return 'There is no store at this address.';
    return err.message;
  }
  return 'The store could not be reached. Check your connection and try again.';
}

export function LoginPage({ org }: { org: string }) {
  const store = `/store/${encodeURIComponent(org)}`;
  const [token, setToken] = useState(firstHandoff.token);
  const [email, setEmail] = useState(firstHandoff.email);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [signedIn, setSignedIn] = useState(getMemberSession(org));
  // A hand-over to the page already open (only the fragment changed, so the page did not load again).
  useEffect(() => {
    const taken = () => {
      if (!window.location.hash.includes('session_token=')) return;
      const next = takeHandoff();
      setToken(next.token);
      if (next.email) setEmail(next.email);
      setError(null);
    };
    window.addEventListener('hashchange', taken);
    return () => window.removeEventListener('hashchange', taken);
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!token) return;
    setBusy(true); setError(null);
    try {
      const answer = await storeFetch<{ email: string; verified: boolean }>(memberLoginPath(org), { method: 'POST', body: { email: email.trim() }, token });
      if (!answer.verified) throw new ApiError(403, 'member_login_unverified', null, 'unverified');
      setMemberSession(org, { token, email: answer.email });
      window.location.assign(store);
    } catch (err) {
      setError(loginError(err));
      setBusy(false);
    }
  }

  if (signedIn && !token) {
    return (
      <section className="s-panel" aria-labelledby="login-title">
        <h1 id="login-title">You are signed in</h1>
        <p>Signed in as <strong>{signedIn.email}</strong>.</p>
        <p className="s-actions">
          <a className="q-button q-button-primary" href={store}>Go to the store</a>
          <Button onClick={() => { setMemberSession(org, null); setSignedIn(null); }}>Sign out</Button>
        </p>
      </section>
    );
  }
  return (
    <section className="s-panel" aria-labelledby="login-title">
      <h1 id="login-title">Sign in to the store</h1>
      {token ? (
        <form onSubmit={submit} aria-label="Sign in">
          <p>Your identity provider signed you in. Confirm your email to spend your points.</p>
          <Field label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required autoFocus />
          <Button type="submit" variant="primary" disabled={busy || !email.trim()}>{busy ? 'Signing in…' : 'Sign in'}</Button>
        </form>
      ) : (
        <p role="note">
          Sign in with your organization's identity provider: it brings you back here to finish. The link is on your
          organization's site.
        </p>
      )}
      {error && <ErrorNote title="Not signed in" error={error} />}
      <p><a href={store}>Back to the store</a></p>
    </section>
  );
}
