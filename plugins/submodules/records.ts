// The submodule records of the list routes and tools (spec "Submodule record"): each submodule's pages, queries and
// feed presets, the modules that read it, its shared pages with their last crawl (from the knowledge module when it
// is loaded), whether the org subscribes and how many orgs do; and the superadmin's view of every submodule.
import type { CoreServices, EntityManager, OrgDb } from '@quad/core';
import { choicesOf, type ParamDecl, type Part, type QueryDecl } from 'quad-submodule-kit';
import { catalogOf, type Submodule } from './catalog.js';
import { sharedPages, type SharedPagesStatus } from './knowledge-link.js';
import { LIMIT_KEY, subscriberCounts, subscriptionsOf } from './subscriptions.js';
import type { SubmoduleViewT } from './schemas.js';

const DEFAULT_MAX_LENGTH = 200;

export function paramView(name: string, p: ParamDecl) {
  return {
    name, description: p.description, required: !p.optional && p.default === undefined, default: p.default ?? null,
    values: choicesOf(p), many: p.many ?? false, pattern: p.pattern ?? null, example: p.example ?? null, max_length: p.max_length ?? DEFAULT_MAX_LENGTH,
  };
}

/** A search is not indexed unless its content says so; everything else is. */
export const indexed = (q: QueryDecl) => q.index ?? q.source.kind !== 'search';

export function queryView(q: QueryDecl) {
  return { name: q.name, title: q.title, description: q.description, index: indexed(q), params: Object.entries(q.params).map(([n, p]) => paramView(n, p)) };
}

/** The status of the shared pages of these submodules, or null without the knowledge module. */
async function sharedStatus(em: EntityManager, services: CoreServices, list: Submodule[]): Promise<Record<string, SharedPagesStatus> | null> {
  const shared = sharedPages(services);
  if (!shared) return null;
  const withPages = list.filter((s) => s.pages.length > 0).map((s) => s.name);
  return withPages.length ? shared.status(em, withPages) : {};
}

function readers(services: CoreServices, s: Submodule, modules: Readonly<Record<string, boolean>>) {
  const byModule = new Map<string, Part[]>();
  for (const [part, names] of Object.entries(s.readers) as [Part, string[] | undefined][]) {
    for (const m of names ?? []) byModule.set(m, [...(byModule.get(m) ?? []), part]);
  }
  return [...byModule].map(([module, parts]) => ({
    module, parts, loaded: services.registry.get(module) !== undefined, enabled: services.registry.isEnabled(modules as Record<string, boolean>, module),
  }));
}

function pagesView(s: Submodule, status: SharedPagesStatus | undefined, knowledge: boolean) {
  const crawled = new Map((status?.pages ?? []).map((p) => [p.key, p]));
  return s.pages.map((p) => {
    const c = knowledge ? crawled.get(p.key) : undefined;
    return {
      key: p.key, url: p.url, title: p.title, category: p.category, fetch_every_hours: p.fetch_every_hours,
      crawl: c ? { enabled: c.enabled, last_attempt_at: c.last_attempt_at, last_success_at: c.last_success_at, last_error: c.last_error, passages: c.passages } : null,
    };
  });
}

/** Every submodule as the org sees it, and its limit (the dashboard list, GET /api/submodules, submodules.list). */
export async function catalogFor(db: OrgDb, services: CoreServices, org: { modules: Readonly<Record<string, boolean>> }) {
  const catalog = await catalogOf(services);
  // One after another: in a tool call they share the call's transaction (one connection).
  const mine = await subscriptionsOf(db);
  const counts = await subscriberCounts(services);
  const status = await sharedStatus(db.em, services, catalog.list);
  const limit = await services.limits.value(db.em, db.org, LIMIT_KEY);
  const submodules: SubmoduleViewT[] = catalog.list.map((s) => {
    const sub = mine.get(s.name);
    const st = status?.[s.name];
    return {
      name: s.name, title: s.title, description: s.description,
      modules: readers(services, s, org.modules),
      pages: pagesView(s, st, status !== null),
      passages: status === null ? null : st?.passages ?? 0,
      last_crawl_at: st?.last_crawl_at ?? null,
      queries: s.queries.map(queryView),
      feeds: s.feeds.map((f) => ({ key: f.key, title: f.title, description: f.description, kind: f.kind, config: structuredClone(f.config) })),
      links: { ...s.links },
      subscribed: sub !== undefined,
      subscribed_at: sub ? new Date(sub.created_at).toISOString() : null,
      subscribers: counts.get(s.name) ?? 0,
    };
  });
  // Every row counts against the limit, a submodule no longer loaded too (DELETE ends it).
  return { submodules, limit: { use: mine.size, value: limit.value } };
}

/** Every submodule for the superadmin: subscribers, shared pages, passages and the failing pages. */
export async function adminView(em: EntityManager, services: CoreServices) {
  const catalog = await catalogOf(services);
  const counts = await subscriberCounts(services);
  const status = await sharedStatus(em, services, catalog.list);
  return {
    submodules: catalog.list.map((s) => {
      const st = status?.[s.name];
      return {
        name: s.name, title: s.title, package: s.package, subscribers: counts.get(s.name) ?? 0, pages: s.pages.length,
        shared: status === null ? null : {
          pages: st?.pages.length ?? 0, passages: st?.passages ?? 0, failing: st?.failing ?? 0, last_crawl_at: st?.last_crawl_at ?? null,
          failing_pages: (st?.pages ?? []).filter((p) => p.enabled && p.last_error !== null)
            .map((p) => ({ key: p.key, url: p.url, last_attempt_at: p.last_attempt_at, last_error: p.last_error })),
        },
      };
    }),
  };
}
