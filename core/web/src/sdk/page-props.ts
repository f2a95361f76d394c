/** What the dashboard passes to a plugin's page component. */
export interface PageProps {
  /** The rest of the address after the page's own path: '' for /dashboard/hello, `12` for /dashboard/hello/12. */
  subpath: string;
}

/** What the member shell passes to a module's member page component (manifest `pages.memberPages`). */
export interface MemberPageProps {
  /** The org in the address (/<module>/<org>/<path>): its prefix, for API paths, and its name. */
  org: { prefix: string; name: string };
}
