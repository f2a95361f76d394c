// Crawl records (spec "Crawl record", PUT /crawls/<key>): a URL the service fetches on a schedule into the source of
// the same key. Saving one checks the URL's form (its addresses are checked by every crawl, which is when they
// matter) and the publisher rule for public; a new or changed URL is due at once.
import { badRequest, forbidden, notFound, sql, type OrgDb, type OrgSnapshot } from '@quad/core';
import { isPublisher, type KnowledgeSettings } from '../settings.js';
import { orgOwner, type OwnerDb } from '../owner.js';

export const DEFAULT_EVERY_HOURS = 24;
export const URL_MAX = 2048;

export interface CrawlInput {
  url?: string;
  category?: string;
  title?: string;
  public?: boolean;
  fetch_every_hours?: number;
  enabled?: boolean;
}

export interface CrawlView {
  key: string;
  url: string;
  category: string;
  title: string;
  public: boolean;
  fetch_every_hours: number;
  enabled: boolean;
  next_at: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
}

export interface CrawlRow {
  id: number; key: string; url: string; category: string; title: string; public: boolean; fetch_every_hours: number; enabled: boolean;
  next_at: Date; last_attempt_at: Date | null; last_success_at: Date | null; last_error: string | null; page_hash: string | null; text_chars: number | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function crawlView(row: CrawlRow): CrawlView {
  return {
    key: row.key, url: row.url, category: row.category, title: row.title, public: row.public,
    fetch_every_hours: row.fetch_every_hours, enabled: row.enabled,
    next_at: row.enabled ? iso(row.next_at) : null,
    last_attempt_at: iso(row.last_attempt_at), last_success_at: iso(row.last_success_at), last_error: row.last_error,
  };
}

const CRAWL_COLUMNS = sql`id, key, url, category, title, public, fetch_every_hours, enabled, next_at, last_attempt_at, last_success_at,
  last_error, page_hash, text_chars`;

/** The crawl record of `key` of an org, or of a submodule's shared pages. */
export async function findCrawl(owner: OwnerDb, key: string): Promise<CrawlRow | null> {
  return owner.read((db) => db.one<CrawlRow>`select ${CRAWL_COLUMNS} from knowledge_crawls c where ${owner.owns('c')} and c.key = ${key}`);
}

export async function listCrawls(db: OrgDb): Promise<CrawlView[]> {
  const rows = await db.sql<CrawlRow>`select ${CRAWL_COLUMNS} from knowledge_crawls where ${db.inOrg()} order by key`;
  return rows.map(crawlView);
}

/** An http(s) URL without credentials (the crawl checks where it resolves); 400 at `field` otherwise. */
export function crawlUrl(raw: string, field = 'body.url'): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badRequest(`${field}: not a valid URL (for example https://example.edu/library/hours)`, 'bad_url', { field });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`${field}: only http and https URLs are crawled`, 'bad_url', { field });
  if (url.username || url.password) throw badRequest(`${field}: a URL with a user name or password is not crawled`, 'bad_url', { field });
  url.hash = '';
  if (url.href.length > URL_MAX) throw badRequest(`${field}: up to ${URL_MAX} characters`, 'bad_url', { field });
  return url.href;
}

/** Create (201) or change (200) a crawl record, in the caller's transaction. */
export async function saveCrawl(db: OrgDb, org: OrgSnapshot, deployment: KnowledgeSettings, key: string, input: CrawlInput): Promise<{ crawl: CrawlView; created: boolean }> {
  if (input.public === true && !isPublisher(deployment, org)) {
    throw forbidden('Only publisher orgs may write public sources (KNOWLEDGE_PUBLISHERS, or the superadmin\'s publisher switch)', 'not_publisher');
  }
  const url = input.url === undefined ? undefined : crawlUrl(input.url);
  const current = await findCrawl(orgOwner(db), key);
  if (!current && url === undefined) throw badRequest('body.url: required for a new crawl', 'url_required', { field: 'body.url' });
  const category = input.category ?? null;
  const title = input.title ?? null;
  const isPublic = input.public ?? null;
  const every = input.fetch_every_hours ?? null;
  const enabled = input.enabled ?? null;
  const row = await db.one<CrawlRow & { created: boolean }>`
    insert into knowledge_crawls as c (organization_id, key, url, category, title, public, fetch_every_hours, enabled)
    values (${db.org}, ${key}, ${url ?? current?.url}, coalesce(${category}::text, ''), coalesce(${title}::text, ''), coalesce(${isPublic}::boolean, false),
      coalesce(${every}::int, ${DEFAULT_EVERY_HOURS}::int), coalesce(${enabled}::boolean, true))
    on conflict (organization_id, key) do update set
      url = coalesce(excluded.url, c.url), category = coalesce(${category}::text, c.category), title = coalesce(${title}::text, c.title),
      public = coalesce(${isPublic}::boolean, c.public), fetch_every_hours = coalesce(${every}::int, c.fetch_every_hours), enabled = coalesce(${enabled}::boolean, c.enabled),
      -- a new URL is crawled at once; a new interval counts from the last attempt
      next_at = case when excluded.url is distinct from c.url then now()
                     else coalesce(c.last_attempt_at + make_interval(hours => coalesce(${every}::int, c.fetch_every_hours)), c.next_at) end,
      page_hash = case when excluded.url is distinct from c.url then null else c.page_hash end,
      updated_at = now()
    returning ${CRAWL_COLUMNS}, (xmax = 0) as created`;
  return { crawl: crawlView(row!), created: row!.created };
}

/** Stop crawling a key (the source and its passages stay); 404 when there is no such crawl. */
export async function deleteCrawl(db: OrgDb, key: string): Promise<void> {
  const deleted = await db.run`delete from knowledge_crawls where ${db.inOrg()} and key = ${key}`;
  if (!deleted) throw notFound(`No crawl "${key}"`, 'crawl_not_found');
}
