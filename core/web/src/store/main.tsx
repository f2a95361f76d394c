// The member store pages (store/index.html), served at /store/<org> (the catalog; a signed-in member's cart, points
// and orders: storefront.tsx) and /store/<org>/login (the storefront sign-in: login.tsx). No officer chrome: these
// pages use the storefront routes with the member's identity-provider token, never the officer's tokens.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { LoginPage } from './login.js';
import { StorefrontPage } from './storefront.js';
import '../styles.css';
import './store.css';

const [, , rawOrg = '', view] = window.location.pathname.split('/');
const org = decodeURIComponent(rawOrg);

function StoreApp() {
  return (
    <div className="s-app">
      <a className="q-skip" href="#content">Skip to the content</a>
      {view === 'login' ? <main id="content" className="s-narrow"><LoginPage org={org} /></main> : <StorefrontPage org={org} />}
    </div>
  );
}

createRoot(document.getElementById('root')!).render(<StrictMode><StoreApp /></StrictMode>);
