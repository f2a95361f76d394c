// The submodules module's deployment settings. SEARCH_URL, SEARCH_ENGINES and SUBMODULE_QUERY_MAX_CHARS are names the
// spec pins outside SUBMODULES_*, claimed in the manifest; CAMPUS_QUERY_MAX_CHARS is the old name of the last (spec
// document 1, "Versioning"), read in its place with a warning (legacyNames).
import { Type, type CoreServices, type Static } from '@quad/core';

export const MODULE = 'submodules';
export const DEFAULT_PACKAGES = ['quad-submodule-campus', 'quad-submodule-careers'];
export const DEFAULT_QUERY_MAX_CHARS = 30_000;

export const SubmodulesSettingsSchema = Type.Object({
  SUBMODULES_PACKAGES: Type.Array(Type.String({ minLength: 1 }), {
    default: DEFAULT_PACKAGES,
    description: 'submodule packages to load (package names, or paths relative to the working directory); comma-separated in the environment',
  }),
  SUBMODULES_BASE_URLS: Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_-]*\\.([a-z][a-z0-9_]*|\\*)=https?://\\S+$', errorMessage: 'must be <submodule>.<base>=<http(s) URL> (or <submodule>.*=<URL> for every base)' }), {
    default: [],
    description: 'base URLs of submodules other than their defaults: <submodule>.<base>=<URL>, or <submodule>.*=<URL> for every base of one submodule',
  }),
  SUBMODULES_CAMPUS_KIT: Type.Optional(Type.String({
    pattern: '^([a-z][a-z0-9_-]{0,39}|\\.{1,2}/\\S+|/\\S+)$',
    errorMessage: 'must name a built-in campus kit (asu) or a kit folder by path (./kits/my-university, or absolute)',
    description: 'the university of the campus submodule: a built-in kit (asu) or the path of a kit folder (relative to the working directory, or absolute). Default: asu',
  })),
  SEARCH_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'search service (SearXNG JSON API) of the web query; unset: the web query answers 503 unless the org connected its own' })),
  SEARCH_ENGINES: Type.String({ default: 'duckduckgo,bing,brave', minLength: 1, description: 'engines the search service is asked (comma-separated)' }),
  SUBMODULE_QUERY_MAX_CHARS: Type.Optional(Type.Integer({
    minimum: 100, maximum: 1_000_000, legacyNames: ['CAMPUS_QUERY_MAX_CHARS'],
    description: `longest live query text; longer answers are cut. Default: ${DEFAULT_QUERY_MAX_CHARS}`,
  })),
});
export type SubmodulesSettings = Static<typeof SubmodulesSettingsSchema>;

export const CLAIMED_SETTINGS = ['SEARCH_URL', 'SEARCH_ENGINES', 'SUBMODULE_QUERY_MAX_CHARS'];

export const settingsOf = (services: CoreServices) => services.moduleSettings<SubmodulesSettings>(MODULE);

export const queryMaxChars = (s: SubmodulesSettings) => s.SUBMODULE_QUERY_MAX_CHARS ?? DEFAULT_QUERY_MAX_CHARS;
