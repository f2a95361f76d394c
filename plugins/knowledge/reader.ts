// The source reader (GET /api/dashboard/<org>/knowledge/sources/<key> and the tool knowledge.read_source): a
// source's page text one page at a time, summaries left out, the chunk_overlap its version was cut with removed where
// the rows repeat it (the org's current setting only for a version older than that record, migrations/0008). An org
// reads its own sources, public ones and the shared pages of the submodules it subscribes to (the scope of its
// search); without its own source of that key, the oldest public one, else a subscribed shared page. All of
// them are read on the org's handle, where row-level security shows the org every one of them (and every shared
// page): each look-up says which it means.
import { notFound, sql, type OrgDb, type SqlFragment } from '@quad/core';
import { sharedIn } from './owner.js';
import { sourceView, type SourceView } from './sources.js';

export const PAGE_ROWS = 500;
export const PAGE_CHARS = 200_000;

export interface ReadInput { key?: string; chunk?: number; offset?: number }

export interface ReadPage {
  source: SourceView & { own: boolean; text_chars: number };
  passages: { id: number; ordinal: number; text: string }[];
  /** The page-text row the `chunk` asked for (its id), or null. */
  focus: number | null;
  /** Position of the page's first row among the source's page-text rows (0 first). */
  offset: number;
  next_offset: number | null;
  /** Page-text rows of the source. */
  total: number;
}

type SourceRow = Parameters<typeof sourceView>[0] & { organization_id: number | null; shared_scope: string | null; origin: string; chunk_overlap: number | null };

const SOURCE_SELECT = sql`select s.id, s.organization_id, s.shared_scope, s.origin, s.key, s.title, s.url, s.category, s.public, s.created_at, s.updated_at,
  v.id as version_id, v.content_hash, v.embedding_model, v.chunk_count, v.created_at as version_created_at, v.chunk_overlap
  from knowledge_sources s left join knowledge_versions v on v.id = s.current_version_id`;

/**
 * `subscribed`: the submodules the org subscribes to (subscriptions.ts), whose shared pages it may read. `overlap`:
 * the org's chunk_overlap now, stripped only from a version that does not say what it was cut with (see builtOverlap).
 */
export async function readSource(db: OrgDb, overlap: number, input: ReadInput, subscribed: string[]): Promise<ReadPage> {
  const own = db.inOrg('s');
  const shared = sharedIn(subscribed, 's');
  const publicOnes = sql`s.public`;
  // `visible`: the rows of `s` (knowledge_sources) the look-up may find the source among.
  const read = (visible: SqlFragment) => readVisible(db, visible, overlap, input);
  const page = input.chunk !== undefined
    // A chunk id names one source: the org's own or a subscribed shared page, else a public one.
    ? await read(sql`(${own} or ${shared})`) ?? await read(publicOnes)
    // No own source of that key: the oldest public one (the same rule as search), else a subscribed shared page.
    : await read(own) ?? await read(publicOnes) ?? await read(shared);
  if (page) return page;
  throw input.chunk !== undefined
    ? notFound(`No passage ${input.chunk} in this org's, public or subscribed sources`, 'chunk_not_found')
    : notFound(`No source "${input.key}" in this org, among public sources or subscribed submodules`, 'source_not_found');
}

/** The page of the source `input` names among the visible ones, or null when none is. */
async function readVisible(db: OrgDb, visible: SqlFragment, overlap: number, input: ReadInput): Promise<ReadPage | null> {
  const found = await locate(db, visible, input);
  return found && pageOf(db, found, overlap, input.offset);
}

interface Located { row: SourceRow; focusOrdinal: number | null }

/** The source of `input.chunk` (and the page-text row to open at), else the oldest of `input.key`, among the visible ones. */
async function locate(db: OrgDb, visible: SqlFragment, input: ReadInput): Promise<Located | null> {
  if (input.chunk === undefined) {
    const row = await db.one<SourceRow>`${SOURCE_SELECT} where ${visible} and s.key = ${input.key} order by s.created_at, s.id limit 1`;
    return row && { row, focusOrdinal: null };
  }
  const hit = await db.one<{ source_id: number; ordinal: number; level: number }>`
    select c.source_id, c.ordinal, c.level from knowledge_chunks c join knowledge_sources s on s.id = c.source_id
    where c.id = ${input.chunk} and ${visible}`;
  if (!hit) return null;
  const row = (await db.one<SourceRow>`${SOURCE_SELECT} where s.id = ${hit.source_id} and ${visible}`)!;
  return { row, focusOrdinal: hit.level === 0 ? hit.ordinal : await firstRowUnder(db, row.version_id, hit.ordinal) };
}

/** One page of the source's page text, from `offset`, else from its focused row, else from the start. */
async function pageOf(db: OrgDb, { row, focusOrdinal }: Located, overlap: number, askedOffset: number | undefined): Promise<ReadPage> {
  const versionId = row.version_id === null ? null : Number(row.version_id);
  const stats = versionId === null ? { total: 0, chars: 0 } : (await db.one<{ total: number; chars: number }>`
    select count(*)::int as total, coalesce(sum(length(content)), 0)::int as chars from knowledge_chunks where version_id = ${versionId} and level = 0`)!;
  let offset = askedOffset ?? 0;
  let focus: number | null = null;
  if (focusOrdinal !== null && versionId !== null) {
    const at = (await db.one<{ n: number; id: string | null }>`
      select (select count(*)::int from knowledge_chunks where version_id = ${versionId} and level = 0 and ordinal < ${focusOrdinal}) as n,
             (select id from knowledge_chunks where version_id = ${versionId} and ordinal = ${focusOrdinal}) as id`)!;
    focus = at.id === null ? null : Number(at.id);
    // The page opens at the focused row unless the caller asked for an offset.
    if (askedOffset === undefined) offset = at.n;
  }
  const passages = versionId === null ? [] : await page(db, versionId, offset, builtOverlap(row, overlap), row.origin !== 'api');
  const end = offset + passages.length;
  return {
    source: { ...sourceView(row), own: row.organization_id === db.org, text_chars: stats.chars },
    passages, focus, offset,
    next_offset: end < stats.total ? end : null,
    total: stats.total,
  };
}

/**
 * The overlap the source's version was cut with. A version written before versions kept it (null) falls back to
 * the reading org's setting now, as the reader did then; a shared page was always split without one.
 */
function builtOverlap(row: SourceRow, orgOverlapNow: number): number {
  if (row.chunk_overlap !== null && row.chunk_overlap !== undefined) return row.chunk_overlap;
  return row.shared_scope === null ? orgOverlapNow : 0;
}

/** The first page-text row below a summary (its own rows first), else the first after it. */
async function firstRowUnder(db: OrgDb, versionId: number | string | null, ordinal: number): Promise<number | null> {
  if (versionId === null) return null;
  const r = await db.one<{ ordinal: number }>`
    select ordinal from knowledge_chunks where version_id = ${versionId} and level = 0 and (parent_ordinal = ${ordinal} or ordinal > ${ordinal})
    order by (parent_ordinal = ${ordinal}) desc nulls last, ordinal limit 1`;
  return r?.ordinal ?? null;
}

/** A crawled or uploaded row starts with the page title on its own line: the text without it. */
const withoutTitle = (content: string) => content.slice(content.indexOf('\n') + 1);

/**
 * Up to PAGE_ROWS rows or PAGE_CHARS characters (at least one row), with the overlap each row repeats removed, and
 * the title line of each row when the service split the source (`titled`).
 */
async function page(db: OrgDb, versionId: number, offset: number, overlap: number, titled: boolean) {
  const rows = await db.sql<{ id: string; ordinal: number; content: string }>`
    select id, ordinal, content from knowledge_chunks where version_id = ${versionId} and level = 0 order by ordinal
    offset ${Math.max(0, offset - 1)} limit ${PAGE_ROWS + (offset > 0 ? 1 : 0)}`;
  // The row before the page, read only to strip the overlap of the page's first row.
  const body = (content: string) => (titled ? withoutTitle(content) : content);
  const before = offset > 0 ? rows.shift() : undefined;
  let previous = before ? body(before.content) : null;
  const out: { id: number; ordinal: number; text: string }[] = [];
  let chars = 0;
  for (const r of rows) {
    const full = body(r.content);
    let text = full;
    if (overlap > 0 && previous !== null) {
      const head = text.slice(0, overlap);
      if (head.length === overlap && previous.endsWith(head)) text = text.slice(overlap);
    }
    if (out.length && chars + text.length > PAGE_CHARS) break;
    out.push({ id: Number(r.id), ordinal: r.ordinal, text });
    chars += text.length;
    previous = full;
  }
  return out;
}
