// Sign-in: the officer signs in with Discord (GET /api/auth/login?client=dashboard); Discord and the API bring the
// browser back to /auth/ with a one-time code (auth-callback.tsx).
import { useSyncExternalStore } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { apiUrl } from '../sdk/api.js';
import { getTokens, subscribeTokens } from '../sdk/session.js';

/** Where to go after signing in; kept across the trip to Discord. */
export const RETURN_KEY = 'platform.return';

const MESSAGES: Record<string, string> = {
  'Unauthorized Access': 'Your Discord account holds the officer role of no org here. Ask an officer of your org to check your role.',
  expired: 'Your session ended. Sign in again.',
};

export function SignIn() {
  const signedIn = useSyncExternalStore(subscribeTokens, getTokens);
  const [params] = useSearchParams();
  const location = useLocation();
  if (signedIn) return <Navigate to="/" replace />;
  const error = params.get('error');
  const from = (location.state as { from?: string } | null)?.from;
  return (
    <main className="q-signin" id="content">
      <div className="q-signin-box">
        <h1>Quad</h1>
        <p>Officers run their org here. Sign in with the Discord account that holds your org's officer role.</p>
        {error && <p className="q-note q-note-error" role="alert">{MESSAGES[error] ?? error}</p>}
        <a className="q-button q-button-primary q-signin-button" href={apiUrl('/api/auth/login?client=dashboard')}
          onClick={() => { if (from) sessionStorage.setItem(RETURN_KEY, from); }}>
          Sign in with Discord
        </a>
      </div>
    </main>
  );
}
