// The officers' Pods page (/dashboard/pods; the old /dashboard/compute opens it): the org's pods with live status and
// their buttons, the create form and the org's default image. /dashboard/pods/<pod_id> opens one pod (pod-detail.tsx).
import { DashboardLink, Page, useApi, type PageProps } from '@quad/web/sdk';
import { usePodsBase, type PodSettings } from './common.js';
import { CreatePodCard } from './create-pod.js';
import { DefaultImageCard } from './default-image.js';
import { PodDetail } from './pod-detail.js';
import { PodsCard } from './pods-table.js';

/** The page at /dashboard/pods (manifest pages.list[0].component). */
export function PodsPage({ subpath }: PageProps) {
  const podId = subpath.split('/')[0] ?? '';
  if (podId) return <PodDetail key={podId} podId={podId} />;
  return (
    <Page title="Pods">
      <p className="q-hint">GPU and CPU pods on the org's own provider account. Members connect over SSH with the CLI, to the pods they may use.</p>
      <ProviderNote />
      <ImageNote />
      <PodsCard />
      <CreatePodCard />
      <DefaultImageCard />
    </Page>
  );
}

/** Pods are made on the org's own account: without its key the provider cannot be asked. */
function ProviderNote() {
  const settings = useApi<PodSettings>(`${usePodsBase()}/settings`).data;
  if (!settings || settings.provider_connected) return null;
  return (
    <p className="q-note q-note-warn" role="status">
      The org has no provider key yet: set <code>hostprov_api_key</code> on <DashboardLink to="/explore?tab=integrations">Explore → Integrations</DashboardLink> to create pods.
    </p>
  );
}

/**
 * The deployment's PODHOST_POD_IMAGE has no default: said plainly while it is not set, with what a create then uses
 * (the org's image, or none: each create must name one).
 */
function ImageNote() {
  const settings = useApi<PodSettings>(`${usePodsBase()}/settings`).data;
  if (!settings || settings.default_image !== null) return null;
  return (
    <p className="q-note q-note-warn" role="status" aria-label="Pod image">
      This deployment sets no pod image (its <code>PODHOST_POD_IMAGE</code> is not set).{' '}
      {settings.pod_image
        ? <>New pods use the org's image, <code>{settings.pod_image}</code>.</>
        : <>Set the org's pod image below, or name an image in each create: without one a pod cannot be created.</>}
      {' '}The image must keep the pod image contract; Quad's own is built from <code>plugins/pods/image</code>.
    </p>
  );
}
