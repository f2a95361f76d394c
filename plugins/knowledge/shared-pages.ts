// The service `knowledge.shared_pages` (issue 19 contracts; spec "Submodules", "States and transitions"): the
// submodules module declares each submodule's public pages here when an org subscribes, and reads their crawl state
// for its lists. A shared page is a crawl record and source with no org (shared_scope: the submodule, owner.ts),
// crawled by the deployment for every subscriber (crawl/shared-crawl.ts), counted against no org limit. Rows of no
// org are written only on the cross-org path, and read there too (a superadmin's view has no org), so both methods
// run their statements across orgs, in a transaction of their own: `em` is the caller's and only says who asks.
import { badRequest, defineService, type AcrossOrgsDb, type CoreServices, type EntityManager } from '@quad/core';
import { KEY_PATTERN } from './sources.js';
import { SUBMODULE_PATTERN, sharedIn } from './owner.js';
import { crawlUrl } from './crawl/records.js';

export interface SharedPageDecl { key: string; url: string; title: string; category: string; fetch_every_hours: number }

export interface SharedPageStatus {
  key: string; url: string; title: string; category: string; enabled: boolean;
  last_attempt_at: string | null; last_success_at: string | null; last_error: string | null;
  /** Passages of the page's current version (0 before its first crawl that worked). */
  passages: number;
}

export interface SharedPagesStatus {
  pages: SharedPageStatus[];
  /** Passages of all its pages. */
  passages: number;
  /** Enabled pages whose last crawl failed. */
  failing: number;
  last_crawl_at: string | null;
}

export interface SharedPages {
  /**
   * Make the submodule's shared pages match `pages` (one transaction, idempotent; safe when two orgs subscribe at
   * once): new keys added (due now), changed url/title/category/schedule updated (a changed url is due now), keys no
   * longer listed turned off (enabled false; their passages stay until the page is crawled again or removed).
   * 400 for a bad submodule name or page.
   */
  sync(em: EntityManager, submodule: string, pages: SharedPageDecl[]): Promise<{ added: number; updated: number; disabled: number }>;
  /** Per submodule name asked: its pages and totals (submodules without pages: empty lists, zeros). */
  status(em: EntityManager, submodules: string[]): Promise<Record<string, SharedPagesStatus>>;
}

export const sharedPagesRef = defineService<SharedPages>({
  id: 'knowledge.shared_pages',
  methods: ['sync', 'status'],
  description: 'The shared pages of submodules: declared by the submodules module, crawled once by the deployment for every subscriber',
});

const MIN_EVERY_HOURS = 1;
const MAX_EVERY_HOURS = 720;

/** The declared pages, checked (400 naming the field) and in key order, so concurrent writers lock rows alike. */
function checkedPages(submodule: string, pages: SharedPageDecl[]): SharedPageDecl[] {
  if (!SUBMODULE_PATTERN.test(submodule)) throw badRequest('submodule: lower-case letters, digits, _ and -, up to 64 characters', 'bad_submodule', { field: 'submodule' });
  const seen = new Set<string>();
  return pages.map((page, i) => {
    const field = (name: string) => `pages[${i}].${name}`;
    if (!KEY_PATTERN.test(page.key)) throw badRequest(`${field('key')}: letters, digits and ._:/- only, 1 to 255 characters`, 'bad_key', { field: field('key') });
    if (seen.has(page.key)) throw badRequest(`${field('key')}: "${page.key}" appears twice`, 'duplicate_key', { field: field('key') });
    seen.add(page.key);
    const every = page.fetch_every_hours;
    if (!Number.isInteger(every) || every < MIN_EVERY_HOURS || every > MAX_EVERY_HOURS) {
      throw badRequest(`${field('fetch_every_hours')}: a whole number from ${MIN_EVERY_HOURS} to ${MAX_EVERY_HOURS}`, 'validation', { field: field('fetch_every_hours') });
    }
    return { key: page.key, url: crawlUrl(page.url, field('url')), title: page.title ?? '', category: page.category ?? '', fetch_every_hours: every };
  }).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Why the shared pages are read and written across orgs: they have no org. */
const SYNC_REASON = 'knowledge.shared_pages_sync';
const STATUS_REASON = 'knowledge.shared_pages_status';

async function sync(all: AcrossOrgsDb, submodule: string, pages: SharedPageDecl[]) {
  const rows = JSON.stringify(pages);
  // One sync of a submodule at a time: two orgs subscribing at once see each other's result, not a half of it.
  await all.run`select pg_advisory_xact_lock(hashtext(${`knowledge.shared_pages:${submodule}`}::text))`;
  const upserted = await all.sql<{ created: boolean }>`
    insert into knowledge_crawls as c (shared_scope, key, url, category, title, fetch_every_hours)
    select ${submodule}::text, p.key, p.url, p.category, p.title, p.fetch_every_hours
    from json_to_recordset(${rows}::json) as p(key text, url text, category text, title text, fetch_every_hours integer)
    on conflict (shared_scope, key) where shared_scope is not null do update set
      url = excluded.url, category = excluded.category, title = excluded.title,
      fetch_every_hours = excluded.fetch_every_hours, enabled = true,
      -- a new URL is crawled at once; a new interval counts from the last attempt
      next_at = case when excluded.url is distinct from c.url then now()
                     else coalesce(c.last_attempt_at + make_interval(hours => excluded.fetch_every_hours), c.next_at) end,
      page_hash = case when excluded.url is distinct from c.url then null else c.page_hash end,
      updated_at = now()
    where (c.url, c.category, c.title, c.fetch_every_hours, c.enabled)
      is distinct from (excluded.url, excluded.category, excluded.title, excluded.fetch_every_hours, true)
    returning (xmax = 0) as created`;
  // A crawled page's source shows the new category (search filters by it) and title before its next crawl.
  await all.run`
    update knowledge_sources s set category = p.category, title = case when p.title <> '' then p.title else s.title end, updated_at = now()
    from json_to_recordset(${rows}::json) as p(key text, category text, title text)
    where s.shared_scope = ${submodule}::text and s.key = p.key
      and (s.category, s.title) is distinct from (p.category, case when p.title <> '' then p.title else s.title end)`;
  const disabled = await all.run`
    update knowledge_crawls c set enabled = false, updated_at = now()
    where c.shared_scope = ${submodule}::text and c.enabled and c.key not in (select jsonb_array_elements_text(${JSON.stringify(pages.map((p) => p.key))}::jsonb))`;
  const added = upserted.filter((r) => r.created).length;
  return { added, updated: upserted.length - added, disabled };
}

interface StatusRow {
  shared_scope: string; key: string; url: string; title: string; category: string; enabled: boolean;
  last_attempt_at: Date | null; last_success_at: Date | null; last_error: string | null; passages: number;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

async function status(all: AcrossOrgsDb, submodules: string[]): Promise<Record<string, SharedPagesStatus>> {
  const out: Record<string, SharedPagesStatus> = {};
  for (const name of submodules) out[name] = { pages: [], passages: 0, failing: 0, last_crawl_at: null };
  if (!submodules.length) return out;
  const rows = await all.sql<StatusRow>`
    select c.shared_scope, c.key, c.url, c.title, c.category, c.enabled, c.last_attempt_at, c.last_success_at, c.last_error,
           coalesce(v.chunk_count, 0) as passages
    from knowledge_crawls c
    left join knowledge_sources s on s.shared_scope = c.shared_scope and s.key = c.key
    left join knowledge_versions v on v.id = s.current_version_id
    where ${sharedIn(submodules, 'c')} order by c.shared_scope, c.key`;
  for (const row of rows) {
    const totals = out[row.shared_scope];
    totals.pages.push({
      key: row.key, url: row.url, title: row.title, category: row.category, enabled: row.enabled,
      last_attempt_at: iso(row.last_attempt_at), last_success_at: iso(row.last_success_at), last_error: row.last_error,
      passages: Number(row.passages),
    });
    totals.passages += Number(row.passages);
    if (row.enabled && row.last_error !== null) totals.failing++;
    const attempt = iso(row.last_attempt_at);
    if (attempt && (!totals.last_crawl_at || attempt > totals.last_crawl_at)) totals.last_crawl_at = attempt;
  }
  return out;
}

export function sharedPagesFor(services: CoreServices): SharedPages {
  return {
    // The pages are checked (400) before any statement.
    sync: async (_em: EntityManager, submodule, pages) => {
      const checked = checkedPages(submodule, pages);
      return services.acrossOrgs(SYNC_REASON, (all) => sync(all, submodule, checked));
    },
    status: (_em: EntityManager, submodules) => services.acrossOrgs(STATUS_REASON, (all) => status(all, submodules)),
  };
}
