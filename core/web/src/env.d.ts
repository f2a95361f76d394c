/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The API's address when the dashboard is hosted apart from it (a static host); default: the page's own origin. */
  readonly VITE_QUAD_API_URL?: string;
}
