// Schemas every route shares, defined once: the error body, the `:org` path parameter and paging. Routes of the
// core and of plugins import them from @quad/core, so bounds and wording never drift between modules.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Every handled error: `{ error, reason? , ...details }` (see the error handler). */
export const ErrorBody = Type.Object({
  error: Type.String(),
  reason: Type.Optional(Type.String()),
  request_id: Type.Optional(Type.String()),
}, { additionalProperties: true });

/** Org references are a prefix or a numeric id: nothing else reaches the org lookup. */
export const OrgRef = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'org prefix or id' });
export const OrgParams = Type.Object({ org: OrgRef });

/** Pages start at 1; the deepest page is bounded so an offset always fits a PostgreSQL bigint and stays cheap. */
export const PAGE_MAX = 10_000;

/** `page` and `per_page` query properties: spread into a route's query schema. `perPage` sets the size bounds. */
export function pagingQuery(perPage: { default: number; maximum: number } = { default: 50, maximum: 200 }) {
  return {
    page: Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1, description: `page number, 1 to ${PAGE_MAX}` }),
    per_page: Type.Integer({ minimum: 1, maximum: perPage.maximum, default: perPage.default, description: `rows per page, 1 to ${perPage.maximum}` }),
  };
}

/** The query schema of a paged listing with the default bounds (50 rows, at most 200). */
export const Paging = Type.Object(pagingQuery());
export type PagingQuery = Static<typeof Paging>;

/** The page envelope: `{ <key>: rows, page, per_page, total }`. */
export function pageOf<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object({
    ...({ [key]: Type.Array(item) } as { [P in K]: ReturnType<typeof Type.Array<T>> }),
    page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer(),
  });
}

/** `limit`/`offset` for a page (what ORM finds and SQL take). */
export function pageWindow(query: { page: number; per_page: number }): { limit: number; offset: number } {
  return { limit: query.per_page, offset: (query.page - 1) * query.per_page };
}
