// The member store pages (store/index.html): /store/<org> and /store/<org>/login. The route and the page exist;
// the catalog, cart, points and sign-in come with the store pages' change.
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles.css';

function StorePage() {
  const [, , org = '', view] = window.location.pathname.split('/');
  const login = view === 'login';
  useEffect(() => {
    document.title = login ? `Sign in · ${org} store` : `${org} store`;
  }, [login, org]);
  return (
    <main className="q-store" id="content">
      <h1>{login ? 'Sign in to the store' : 'Store'}</h1>
      <p>The store of <strong>{org}</strong> is on its way.</p>
      <p>{login ? <a href={`/store/${encodeURIComponent(org)}`}>Back to the store</a> : <a href={`/store/${encodeURIComponent(org)}/login`}>Sign in</a>}</p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<StrictMode><StorePage /></StrictMode>);
