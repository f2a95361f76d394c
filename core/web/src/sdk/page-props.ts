/** What the dashboard passes to a plugin's page component. */
export interface PageProps {
  /** The rest of the address after the page's own path: '' for /dashboard/hello, `12` for /dashboard/hello/12. */
  subpath: string;
}
