// The org the officer is working on: every page reads it with useOrg() and puts its prefix in API paths.
import { createContext, useContext } from 'react';

export interface Branding { logo_url: string | null; accent_color: string | null; website_url: string | null }

export interface CurrentOrg {
  id: number;
  /** The org's prefix, for API paths: `/api/hello/${org.prefix}/greetings`. */
  prefix: string;
  name: string;
  /** The accent color in use (the org's, or the dashboard's gray). */
  accent: string;
  branding: Branding | null;
}

export const OrgContext = createContext<CurrentOrg | null>(null);

/** The current org; only inside the dashboard's pages. */
export function useOrg(): CurrentOrg {
  const org = useContext(OrgContext);
  if (!org) throw new Error('useOrg() is only available inside a dashboard page');
  return org;
}
