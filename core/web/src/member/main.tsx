// The member shell (member/index.html), served at /<module>/<org>/<path> for a module's member pages (manifest
// `pages.memberPages`): no officer chrome and no officer sign-in. The service names the page in a <meta> it fills
// per request (core/src/http/web.ts); the shell loads the module's bundle, whose React, query cache and SDK are the
// shell's own through the import map, and renders the named component with `{ org }`. The page calls the API with
// the member's own credential (the chat session cookie), never an officer's token.
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import type { MemberPageProps } from '../sdk/page-props.js';
import { queryClient } from '../sdk/query.js';
import { BundleExport } from '../shell/plugin-bundles.js';
import '../styles.css';
import './member.css';

interface MemberPage { entry: string; component: string; title: string; org: MemberPageProps['org'] }

/** What the service told the shell to show, or null (the shell opened at another address). */
function pageOf(doc: Document): MemberPage | null {
  const content = doc.querySelector('meta[name="quad-member-page"]')?.getAttribute('content');
  if (!content) return null;
  try {
    return JSON.parse(content) as MemberPage;
  } catch {
    return null;
  }
}

function MemberApp({ page }: { page: MemberPage | null }) {
  useEffect(() => {
    if (page) document.title = `${page.title} · ${page.org.name}`;
  }, [page]);
  if (!page) {
    return <main className="m-main"><p className="q-note q-note-error" role="alert">No page to show here: member pages open at /&lt;module&gt;/&lt;org&gt;/&lt;page&gt;.</p></main>;
  }
  return (
    <div className="m-app">
      <a className="q-skip" href="#content">Skip to the content</a>
      <header className="m-header"><span className="m-brand">{page.org.name}</span></header>
      <main id="content" className="m-main">
        <BundleExport<MemberPageProps> entry={page.entry} name={page.component} label={page.title} props={{ org: page.org }} />
      </main>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}><MemberApp page={pageOf(document)} /></QueryClientProvider>
  </StrictMode>,
);
