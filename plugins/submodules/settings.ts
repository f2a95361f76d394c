// The submodules module's deployment settings. SEARCH_URL, SEARCH_ENGINES and SUBMODULE_QUERY_MAX_CHARS are names the
// spec pins outside SUBMODULES_*, and CAMPUS_QUERY_MAX_CHARS is the legacy name of the last (spec document 1,
// "Versioning"): all four are claimed in the manifest.
import { Type, type CoreServices, type Static } from '@quad/core';

export const MODULE = 'submodules';
export const DEFAULT_PACKAGES = ['quad-submodule-campus', 'quad-submodule-careers'];
export const DEFAULT_QUERY_MAX_CHARS = 30_000;
const MaxChars = (description: string) => Type.Optional(Type.Integer({ minimum: 100, maximum: 1_000_000, description }));

export const SubmodulesSettingsSchema = Type.Object({
  SUBMODULES_PACKAGES: Type.Array(Type.String({ minLength: 1 }), {
    default: DEFAULT_PACKAGES,
    description: 'submodule packages to load (package names, or paths relative to the working directory); comma-separated in the environment',
  }),
  SUBMODULES_BASE_URLS: Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_-]*\\.([a-z][a-z0-9_]*|\\*)=https?://\\S+$', errorMessage: 'must be <submodule>.<base>=<http(s) URL> (or <submodule>.*=<URL> for every base)' }), {
    default: [],
    description: 'base URLs of submodules other than their defaults: <submodule>.<base>=<URL>, or <submodule>.*=<URL> for every base of one submodule',
  }),
  SEARCH_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'search service (SearXNG JSON API) of the web query; unset: the web query answers 503 unless the org connected its own' })),
  SEARCH_ENGINES: Type.String({ default: 'duckduckgo,bing,brave', minLength: 1, description: 'engines the search service is asked (comma-separated)' }),
  SUBMODULE_QUERY_MAX_CHARS: MaxChars(`longest live query text; longer answers are cut. Default: ${DEFAULT_QUERY_MAX_CHARS}`),
  CAMPUS_QUERY_MAX_CHARS: MaxChars('legacy name of SUBMODULE_QUERY_MAX_CHARS (used when that is unset)'),
});
export type SubmodulesSettings = Static<typeof SubmodulesSettingsSchema>;

export const CLAIMED_SETTINGS = ['SEARCH_URL', 'SEARCH_ENGINES', 'SUBMODULE_QUERY_MAX_CHARS', 'CAMPUS_QUERY_MAX_CHARS'];

export const settingsOf = (services: CoreServices) => services.moduleSettings<SubmodulesSettings>(MODULE);

export const queryMaxChars = (s: SubmodulesSettings) => s.SUBMODULE_QUERY_MAX_CHARS ?? s.CAMPUS_QUERY_MAX_CHARS ?? DEFAULT_QUERY_MAX_CHARS;
