// Schemas every route shares, defined once: the error body, the `:org` path parameter and paging. Routes of the
// core and of plugins import them from @quad/core, so bounds and wording never drift between modules.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Every handled error: `{ error, reason?, field?, ...details }` (see the error handler). Its title names the
 * OpenAPI component every error response points to.
 */
export const ErrorBody = Type.Object({
  error: Type.String(),
  reason: Type.Optional(Type.String()),
  field: Type.Optional(Type.String({ description: 'validation errors: the invalid field, e.g. `body.name` or `querystring.page`' })),
  request_id: Type.Optional(Type.String({ description: 'a 500: the id that finds it in the error log' })),
}, { additionalProperties: true, title: 'Error', description: 'What every error answers: a message, and a reason a client can branch on' });

/**
 * Org references are a prefix or a numeric id: nothing else reaches the org lookup. The core checks every `:org`
 * against this rule before its onRequest hooks resolve it, also on routes that declare no params schema.
 */
export const OrgRef = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'org prefix or id' });
export const OrgParams = Type.Object({ org: OrgRef });
const ORG_REF = new RegExp(OrgRef.pattern!);

/** Does `ref` follow the OrgRef rule (a prefix or a numeric id)? Says nothing about whether the org exists. */
export function isOrgRef(ref: unknown): ref is string {
  return typeof ref === 'string' && ref.length >= OrgRef.minLength! && ref.length <= OrgRef.maxLength! && ORG_REF.test(ref);
}

/** Largest value of a PostgreSQL `integer` (and `serial` id). */
export const INT4_MAX = 2_147_483_647;
/** An id of a `serial` column: 1 to 2^31 - 1. */
export const Id = Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'row id' });
/** An id of a `bigserial` column: 1 to 2^53 - 1 (what a JavaScript number holds exactly). */
export const BigId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'row id' });

/** The params of a route under an org: `orgParams({ id: Id })` is `{ org, id }`. */
export function orgParams<P extends Record<string, TSchema>>(more: P) {
  return Type.Object({ org: OrgRef, ...more });
}

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
