// Crawl records (spec "Crawl record", PUT /crawls/<key>): a URL the service fetches on a schedule into the source of
// the same key. Saving one checks the URL's form (its addresses are checked by every crawl, which is when they
// matter) and the publisher rule for public; a new or changed URL is due at once.
import { badRequest, forbidden, notFound, type EntityManager, type OrgSnapshot } from '@quad/core';
import { isPublisher, type KnowledgeSettings } from '../settings.js';
import { ownedBy, type Owner } from '../owner.js';

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

const CRAWL_COLUMNS = `id, key, url, category, title, public, fetch_every_hours, enabled, next_at, last_attempt_at, last_success_at,
  last_error, page_hash, text_chars`;

/** The crawl record of `key` of an org, or of a submodule's shared pages. */
export async function findCrawl(em: EntityManager, owner: Owner, key: string): Promise<CrawlRow | null> {
  const owned = ownedBy(owner, 'c');
  const [row]: CrawlRow[] = await em.execute(`select ${CRAWL_COLUMNS} from knowledge_crawls c where ${owned.sql} and c.key = ?`, [...owned.params, key]);
  return row ?? null;
}

export async function listCrawls(em: EntityManager, orgId: number): Promise<CrawlView[]> {
  const rows: CrawlRow[] = await em.execute(`select ${CRAWL_COLUMNS} from knowledge_crawls where organization_id = ? order by key`, [orgId]);
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
export async function saveCrawl(em: EntityManager, org: OrgSnapshot, deployment: KnowledgeSettings, key: string, input: CrawlInput): Promise<{ crawl: CrawlView; created: boolean }> {
  if (input.public === true && !isPublisher(deployment, org)) {
    throw forbidden('Only publisher orgs may write public sources (KNOWLEDGE_PUBLISHERS, or the superadmin\'s publisher switch)', 'not_publisher');
  }
  const url = input.url === undefined ? undefined : crawlUrl(input.url);
  const current = await findCrawl(em, { orgId: org.id }, key);
  if (!current && url === undefined) throw badRequest('body.url: required for a new crawl', 'url_required', { field: 'body.url' });
  const [row]: (CrawlRow & { created: boolean })[] = await em.execute(
    `insert into knowledge_crawls as c (organization_id, key, url, category, title, public, fetch_every_hours, enabled)
     values (?, ?, ?, coalesce(?, ''), coalesce(?, ''), coalesce(?, false), coalesce(?, ${DEFAULT_EVERY_HOURS}), coalesce(?, true))
     on conflict (organization_id, key) do update set
       url = coalesce(excluded.url, c.url), category = coalesce(?, c.category), title = coalesce(?, c.title),
       public = coalesce(?, c.public), fetch_every_hours = coalesce(?, c.fetch_every_hours), enabled = coalesce(?, c.enabled),
       -- a new URL is crawled at once; a new interval counts from the last attempt
       next_at = case when excluded.url is distinct from c.url then now()
                      else coalesce(c.last_attempt_at + make_interval(hours => coalesce(?, c.fetch_every_hours)), c.next_at) end,
       page_hash = case when excluded.url is distinct from c.url then null else c.page_hash end,
       updated_at = now()
     returning ${CRAWL_COLUMNS}, (xmax = 0) as created`,
    [org.id, key, url ?? current?.url, input.category ?? null, input.title ?? null, input.public ?? null, input.fetch_every_hours ?? null, input.enabled ?? null,
      input.category ?? null, input.title ?? null, input.public ?? null, input.fetch_every_hours ?? null, input.enabled ?? null, input.fetch_every_hours ?? null]);
  return { crawl: crawlView(row), created: row.created };
}

/** Stop crawling a key (the source and its passages stay); 404 when there is no such crawl. */
export async function deleteCrawl(em: EntityManager, orgId: number, key: string): Promise<void> {
  const rows = await em.execute('delete from knowledge_crawls where organization_id = ? and key = ? returning id', [orgId, key]);
  if (!rows.length) throw notFound(`No crawl "${key}"`, 'crawl_not_found');
}

