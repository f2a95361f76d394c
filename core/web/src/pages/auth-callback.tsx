// /auth/?code=…: trade the one-time code (60 s, single use) for the token pair, then open the dashboard.
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { apiFetch } from '../sdk/api.js';
import { setTokens } from '../sdk/session.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { RETURN_KEY } from './sign-in.js';

interface TokenPair { access_token: string; refresh_token: string }

// One exchange per code: React may run an effect twice, and a code works once.
const exchanges = new Map<string, Promise<TokenPair>>();

export function AuthCallback() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [failed, setFailed] = useState<unknown>(null);
  const code = params.get('code');
  const error = params.get('error');

  useEffect(() => {
    if (error || !code) {
      void navigate(`/signin${error ? `?error=${encodeURIComponent(error)}` : ''}`, { replace: true });
      return;
    }
    let exchange = exchanges.get(code);
    if (!exchange) {
      exchange = apiFetch<TokenPair>('/api/auth/exchange', { method: 'POST', body: { code }, anonymous: true });
      exchanges.set(code, exchange);
    }
    let live = true;
    exchange.then((pair) => {
      setTokens({ access: pair.access_token, refresh: pair.refresh_token });
      if (!live) return;
      const back = sessionStorage.getItem(RETURN_KEY);
      sessionStorage.removeItem(RETURN_KEY);
      void navigate(back?.startsWith('/') ? back : '/', { replace: true });
    }, (err: unknown) => {
      if (live) setFailed(err);
    });
    return () => { live = false; };
  }, [code, error, navigate]);

  return (
    <main className="q-signin" id="content">
      <div className="q-signin-box">
        <h1>Signing in</h1>
        {failed ? <><ErrorNote title="Sign-in failed" error={failed} /><Link to="/signin">Sign in again</Link></> : <Loading label="Signing in…" />}
      </div>
    </main>
  );
}
