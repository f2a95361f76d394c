// The catalog: the submodules of the packages named in SUBMODULES_PACKAGES, loaded once per process, checked (a bad
// package fails boot naming the package and the field) and resolved against the deployment's base URLs
// (SUBMODULES_BASE_URLS), so page URLs and links are plain URLs from here on. A package that exports a kit choice
// (campus) brings the kit its setting names (kits.ts).
import { importSpecifier, type CoreServices } from '@quad/core';
import {
  isKitChoice, type FeedPresetDecl, type PageDecl, type Part, type QueryDecl, type SubmoduleCode, type SubmoduleContent,
  type SubmoduleDecl,
} from 'quad-submodule-kit';
import { checked, SubmoduleConfigError } from './content-check.js';
import { loadKit } from './kits.js';
import { settingsOf, type SubmodulesSettings } from './settings.js';

export { SubmoduleConfigError };

/** A submodule as the module serves it: its content with every base resolved. */
export interface Submodule {
  name: string;
  title: string;
  description: string;
  /** The package that declared it. */
  package: string;
  /** The kit that makes its content (a built-in kit's name or a kit folder's path), or null for a plain package. */
  kit: string | null;
  readers: Partial<Record<Part, string[]>>;
  /** Base name → URL in force (without a trailing slash). */
  bases: Record<string, string>;
  /** Base name → the site's name in error messages ("its site" when the content gives none). */
  siteNames: Record<string, string>;
  /** The parsers and transforms its content names. */
  code: SubmoduleCode;
  /** Shared pages with absolute URLs. */
  pages: PageDecl[];
  queries: QueryDecl[];
  feeds: FeedPresetDecl[];
  links: { course_management: string | null; sign_in: string | null };
}

export interface Catalog {
  list: Submodule[];
  get(name: string): Submodule | undefined;
}

const loaded = new WeakMap<object, Promise<Catalog>>();

/**
 * The catalog of this deployment, loaded on first use and kept (keyed by the registry: one per running Quad). The
 * routes load it at boot, so an API process with a bad package does not start.
 */
export function catalogOf(services: CoreServices): Promise<Catalog> {
  let catalog = loaded.get(services.registry);
  if (!catalog) {
    catalog = loadCatalog(settingsOf(services));
    loaded.set(services.registry, catalog);
  }
  return catalog;
}

export type CatalogSettings = Pick<SubmodulesSettings, 'SUBMODULES_PACKAGES' | 'SUBMODULES_BASE_URLS' | 'SUBMODULES_CAMPUS_KIT'>;

export async function loadCatalog(settings: CatalogSettings): Promise<Catalog> {
  const contents: Loaded[] = [];
  for (const spec of [...new Set(settings.SUBMODULES_PACKAGES)]) contents.push(...await importContents(spec, settings));
  const byName = new Map<string, string>();
  for (const { spec, content } of contents) {
    const other = byName.get(content.name);
    if (other) throw new SubmoduleConfigError(`Submodule package "${spec}": name: "${content.name}" is declared by package "${other}" already`);
    byName.set(content.name, spec);
  }
  const overrides = baseOverrides(settings.SUBMODULES_BASE_URLS, new Map(contents.map(({ content }) => [content.name, content])));
  const list = contents.map(({ spec, content, kit }) => resolveSubmodule(spec, kit, content, overrides.get(content.name) ?? {}));
  list.sort((a, b) => a.name.localeCompare(b.name));
  const index = new Map(list.map((s) => [s.name, s]));
  return { list, get: (name) => index.get(name) };
}

interface Loaded { spec: string; content: SubmoduleDecl; kit: string | null }

/** The checked submodules of one package (its default export: one submodule, a list, or a kit choice). */
async function importContents(spec: string, settings: CatalogSettings): Promise<Loaded[]> {
  const fail = (field: string, problem: string) => new SubmoduleConfigError(`Submodule package "${spec}": ${field}: ${problem}`);
  let module: Record<string, unknown>;
  try {
    module = await import(importSpecifier(spec));
  } catch (err) {
    throw fail('package', `cannot be imported (is it installed, and named in SUBMODULES_PACKAGES as its package name or a path?): ${(err as Error).message}`);
  }
  const exported = module.default;
  if (exported === undefined) throw fail('default export', 'must be defineSubmodule({...}), a list of them or defineKitChoice({...})');
  if (isKitChoice(exported)) {
    const { kit, content } = await loadKit(exported, settings);
    return [{ spec, content, kit }];
  }
  const contents = Array.isArray(exported) ? exported : [exported];
  return contents.map((content, i) => {
    const at = Array.isArray(exported) ? `default[${i}].` : '';
    return { spec, content: checked(content, (problem) => `Submodule package "${spec}": ${at}${problem}`), kit: null };
  });
}

/** SUBMODULES_BASE_URLS as submodule → base → URL; an entry naming an unknown submodule or base is an error. */
function baseOverrides(entries: string[], contents: Map<string, SubmoduleContent>): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const [name, base] = [entry.slice(0, entry.indexOf('.')), entry.slice(entry.indexOf('.') + 1, eq)];
    const url = entry.slice(eq + 1);
    const content = contents.get(name);
    const fail = (problem: string) => new SubmoduleConfigError(`SUBMODULES_BASE_URLS: ${name}.${base}: ${problem}`);
    if (!content) throw fail(`no loaded submodule is named "${name}" (loaded: ${[...contents.keys()].join(', ') || 'none'})`);
    const known = Object.keys(content.bases ?? {});
    if (base !== '*' && !known.includes(base)) throw fail(`the submodule has no base "${base}" (its bases: ${known.join(', ') || 'none'})`);
    if (!URL.canParse(url)) throw fail('is not a URL');
    const mine = out.get(name) ?? {};
    for (const b of base === '*' ? known : [base]) mine[b] = url;
    out.set(name, mine);
  }
  return out;
}

const trimSlash = (url: string) => url.replace(/(?<!\/)\/+$/, '');

function resolveSubmodule(spec: string, kit: string | null, c: SubmoduleDecl, overrides: Record<string, string>): Submodule {
  const bases = Object.fromEntries(Object.entries(c.bases ?? {}).map(([name, b]) => [name, trimSlash(overrides[name] ?? b.url)]));
  const siteNames = Object.fromEntries(Object.entries(c.bases ?? {}).map(([name, b]) => [name, b.title ?? 'its site']));
  const expand = (template: string) => template.replace(/\{([a-z][a-z0-9_]*)\}/g, (_, name: string) => bases[name]!);
  return {
    name: c.name, title: c.title, description: c.description, package: spec, kit, readers: c.readers, bases, siteNames, code: c.code ?? {},
    pages: (c.pages ?? []).map((p) => ({ ...p, url: expand(p.url) })),
    queries: c.queries ?? [],
    feeds: c.feeds ?? [],
    links: {
      course_management: c.links?.course_management ? expand(c.links.course_management) : null,
      sign_in: c.links?.sign_in ? expand(c.links.sign_in) : null,
    },
  };
}
