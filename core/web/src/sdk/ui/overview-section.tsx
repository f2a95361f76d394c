// A module's Overview card reads its own section of GET /api/dashboard/<org>/overview (the query the Overview page
// itself makes, so the card costs no request): waiting, a failed request and a section the server could not compute
// are shown the same way for every module.
import type { ReactNode } from 'react';
import { useApi } from '../query.js';
import { useOrg } from '../org.js';
import { ErrorNote, Loading } from './notes.js';

export type OverviewSectionData = Record<string, unknown>;

interface Props {
  /** The module's name: its key under `modules` in the overview. */
  module: string;
  /** What the section counts, for the sentence shown when it is unavailable ("Points counts"). */
  what: string;
  children: (section: OverviewSectionData) => ReactNode;
}

export function OverviewSection({ module, what, children }: Props) {
  const org = useOrg();
  const overview = useApi<{ modules: Record<string, OverviewSectionData> }>(`/api/dashboard/${org.prefix}/overview`);
  if (overview.isPending) return <Loading />;
  if (overview.error) return <ErrorNote error={overview.error} />;
  const section = overview.data.modules[module];
  if (!section || section.unavailable) return <p>{what} are unavailable right now.</p>;
  return <>{children(section)}</>;
}
