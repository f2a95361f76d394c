// The dashboard: sign-in and its callback, and the signed-in shell; one query cache for everything, cleared when
// the officer signs out.
import { useEffect, useSyncExternalStore } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { onSignOut } from '../sdk/api.js';
import { queryClient } from '../sdk/query.js';
import { getTokens, subscribeTokens } from '../sdk/session.js';
import { AuthCallback } from '../pages/auth-callback.js';
import { SignIn } from '../pages/sign-in.js';
import { Shell } from './shell.js';

/** The router's base: /dashboard (Vite's base, without its trailing slash). */
const BASENAME = import.meta.env.BASE_URL.replace(/\/$/, '');

export function App() {
  // Nothing of the officer's stays in memory after sign-out.
  useEffect(() => onSignOut(() => queryClient.clear()), []);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={BASENAME}>
        <Routes>
          <Route path="auth" element={<AuthCallback />} />
          <Route path="signin" element={<SignIn />} />
          <Route path="*" element={<SignedIn />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}

function SignedIn() {
  const tokens = useSyncExternalStore(subscribeTokens, getTokens);
  const location = useLocation();
  if (!tokens) return <Navigate to="/signin" replace state={{ from: `${location.pathname}${location.search}${location.hash}` }} />;
  return <Shell />;
}
