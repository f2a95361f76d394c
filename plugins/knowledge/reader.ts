// The source reader (GET /api/dashboard/<org>/knowledge/sources/<key> and the tool knowledge.read_source): a
// source's page text one page at a time, summaries left out, the org's chunk_overlap removed where the rows repeat
// it. An org reads its own sources, public ones and the shared pages of the submodules it subscribes to (the scope
// of its search); without its own source of that key, the oldest public one, else a subscribed shared page.
import { notFound, type EntityManager } from '@quad/core';
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

type SourceRow = Parameters<typeof sourceView>[0] & { organization_id: number | null; shared_scope: string | null; origin: string };

const SOURCE_SELECT = `select s.id, s.organization_id, s.shared_scope, s.origin, s.key, s.title, s.url, s.category, s.public, s.created_at, s.updated_at,
  v.id as version_id, v.content_hash, v.embedding_model, v.chunk_count, v.created_at as version_created_at
  from knowledge_sources s left join knowledge_versions v on v.id = s.current_version_id`;

/**
 * `subscribed`: the submodules the org subscribes to (subscriptions.ts), whose shared pages it may read. `overlap`:
 * the org's chunk_overlap (a shared page is split without one).
 */
export async function readSource(em: EntityManager, orgId: number, overlap: number, input: ReadInput, subscribed: string[]): Promise<ReadPage> {
  let row: SourceRow | undefined;
  let focusOrdinal: number | null = null;
  const shared = sharedIn(subscribed, 's');
  if (input.chunk !== undefined) {
    // Cross-org read in one visible place: the chunk's source must be the org's own, public, or a subscribed shared page.
    const [hit]: { source_id: number; ordinal: number; level: number }[] = await em.execute(
      `select c.source_id, c.ordinal, c.level from knowledge_chunks c join knowledge_sources s on s.id = c.source_id
       where c.id = ? and (s.organization_id = ? or s.public or ${shared.sql})`, [input.chunk, orgId, ...shared.params]);
    if (!hit) throw notFound(`No passage ${input.chunk} in this org's, public or subscribed sources`, 'chunk_not_found');
    [row] = await em.execute(`${SOURCE_SELECT} where s.id = ?`, [hit.source_id]);
    focusOrdinal = hit.level === 0 ? hit.ordinal : await firstRowUnder(em, row!.version_id, hit.ordinal);
  } else {
    [row] = await em.execute(`${SOURCE_SELECT} where s.organization_id = ? and s.key = ?`, [orgId, input.key]);
    // No own source of that key: the oldest public one (the same cross-org rule as search), else a subscribed shared page.
    row ??= (await em.execute(`${SOURCE_SELECT} where s.public and s.key = ? order by s.created_at, s.id limit 1`, [input.key]))[0] as SourceRow;
    row ??= (await em.execute(`${SOURCE_SELECT} where ${shared.sql} and s.key = ? order by s.created_at, s.id limit 1`, [...shared.params, input.key]))[0] as SourceRow;
    if (!row) throw notFound(`No source "${input.key}" in this org, among public sources or subscribed submodules`, 'source_not_found');
  }
  const versionId = row!.version_id === null ? null : Number(row!.version_id);
  const [stats]: { total: number; chars: number }[] = versionId === null ? [{ total: 0, chars: 0 }] : await em.execute(
    'select count(*)::int as total, coalesce(sum(length(content)), 0)::int as chars from knowledge_chunks where version_id = ? and level = 0', [versionId]);
  let offset = input.offset ?? 0;
  let focus: number | null = null;
  if (focusOrdinal !== null && versionId !== null) {
    const [at]: { n: number; id: string | null }[] = await em.execute(
      `select (select count(*)::int from knowledge_chunks where version_id = ? and level = 0 and ordinal < ?) as n,
              (select id from knowledge_chunks where version_id = ? and ordinal = ?) as id`, [versionId, focusOrdinal, versionId, focusOrdinal]);
    focus = at.id === null ? null : Number(at.id);
    // The page opens at the focused row unless the caller asked for an offset.
    if (input.offset === undefined) offset = at.n;
  }
  const passages = versionId === null ? [] : await page(em, versionId, offset, row!.shared_scope === null ? overlap : 0, row!.origin !== 'api');
  const end = offset + passages.length;
  return {
    source: { ...sourceView(row!), own: row!.organization_id === orgId, text_chars: stats.chars },
    passages, focus, offset,
    next_offset: end < stats.total ? end : null,
    total: stats.total,
  };
}

/** The first page-text row below a summary (its own rows first), else the first after it. */
async function firstRowUnder(em: EntityManager, versionId: number | string | null, ordinal: number): Promise<number | null> {
  if (versionId === null) return null;
  const [r]: { ordinal: number }[] = await em.execute(
    `select ordinal from knowledge_chunks where version_id = ? and level = 0 and (parent_ordinal = ? or ordinal > ?)
     order by (parent_ordinal = ?) desc nulls last, ordinal limit 1`, [versionId, ordinal, ordinal, ordinal]);
  return r?.ordinal ?? null;
}

/** A crawled or uploaded row starts with the page title on its own line: the text without it. */
const withoutTitle = (content: string) => content.slice(content.indexOf('\n') + 1);

/**
 * Up to PAGE_ROWS rows or PAGE_CHARS characters (at least one row), with the overlap each row repeats removed, and
 * the title line of each row when the service split the source (`titled`).
 */
async function page(em: EntityManager, versionId: number, offset: number, overlap: number, titled: boolean) {
  const rows: { id: string; ordinal: number; content: string }[] = await em.execute(
    'select id, ordinal, content from knowledge_chunks where version_id = ? and level = 0 order by ordinal offset ? limit ?',
    [versionId, Math.max(0, offset - 1), PAGE_ROWS + (offset > 0 ? 1 : 0)]);
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
