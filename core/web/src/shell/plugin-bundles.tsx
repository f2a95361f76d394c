// Loading a module's page bundle at run time: the dashboard imports the bundle's entry (served by the service under
// /dashboard/plugins/<module>/) and renders the export the manifest names. The bundle's `react`,
// `@tanstack/react-query` and `@quad/web/sdk` are the dashboard's own, through the import map of index.html.
import { Component, Suspense, useEffect, useState, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { apiUrl } from '../sdk/api.js';
import { Button } from '../sdk/ui/button.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';

/** Each bundle is imported once (a failed import is tried again next time). */
const bundles = new Map<string, Promise<Record<string, unknown>>>();

function loadBundle(entry: string): Promise<Record<string, unknown>> {
  let bundle = bundles.get(entry);
  if (!bundle) {
    bundle = import(/* @vite-ignore */ apiUrl(entry)) as Promise<Record<string, unknown>>;
    bundles.set(entry, bundle);
    bundle.catch(() => bundles.delete(entry));
  }
  return bundle;
}

type Loaded<P> = { status: 'loading' } | { status: 'ready'; component: ComponentType<P> } | { status: 'failed'; error: unknown };

/** The component a bundle exports under `name`. */
function useBundleExport<P>(entry: string, name: string, attempt: number): Loaded<P> {
  const [state, setState] = useState<Loaded<P>>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    setState({ status: 'loading' });
    loadBundle(entry).then((mod) => {
      const exported = mod[name];
      if (typeof exported !== 'function' && (typeof exported !== 'object' || exported === null)) {
        throw new Error(`${entry} has no export "${name}"`);
      }
      if (live) setState({ status: 'ready', component: exported as ComponentType<P> });
    }).catch((error: unknown) => {
      if (live) setState({ status: 'failed', error });
    });
    return () => { live = false; };
  }, [entry, name, attempt]);
  return state;
}

/** Keeps a page's own failure inside its frame. */
class ErrorBoundary extends Component<{ fallback: (error: unknown) => ReactNode; children: ReactNode }, { error: unknown }> {
  state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('a plugin page failed', error, info.componentStack);
  }
  render() {
    return this.state.error ? this.props.fallback(this.state.error) : this.props.children;
  }
}

/** A component exported by a module's bundle, with its loading, failure and retry. */
export function BundleExport<P extends object>({ entry, name, label, props }: { entry: string; name: string; label: string; props: P }) {
  const [attempt, setAttempt] = useState(0);
  const loaded = useBundleExport<P>(entry, name, attempt);
  const failed = (error: unknown) => (
    <div className="q-bundle-failed">
      <ErrorNote title={`${label} could not be shown`} error={error} />
      <Button onClick={() => setAttempt((a) => a + 1)}>Try again</Button>
    </div>
  );
  if (loaded.status === 'loading') return <Loading label={`Loading ${label}…`} />;
  if (loaded.status === 'failed') return failed(loaded.error);
  const Exported = loaded.component;
  return (
    <ErrorBoundary key={`${entry}#${name}#${attempt}`} fallback={failed}>
      <Suspense fallback={<Loading label={`Loading ${label}…`} />}>
        <Exported {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}
