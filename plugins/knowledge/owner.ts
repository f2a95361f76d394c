// Whose a knowledge row is (sources, crawl records, versions, passages): an org's, or a submodule's shared page
// (migrations/0005), which has no org — organization_id null, shared_scope the submodule's name —, counts against no
// org limit and is never public. Queries name the owner through an OwnerDb, so no org-scoped query meets a shared
// row. Row-level security (the tables are `shared`, with `public` rows) lets an org-bound statement read the shared
// rows and other orgs' public ones but write only its org's: an org's rows are reached on its org-bound handle, a
// shared page's on the cross-org path.
import { sql, type AcrossOrgsDb, type CoreServices, type OrgDb, type SqlFragment } from '@quad/core';

/** A handle that runs statements: an org's (org-bound) or the cross-org path's. */
export type Handle = OrgDb | AcrossOrgsDb;

/** Statements on one owner's knowledge rows. */
export interface OwnerDb {
  /** The condition that a row (of `alias`) is the owner's. */
  owns(alias?: string): SqlFragment;
  /** The owner's organization_id and shared_scope, in this order, as values of an insert (exactly one is set). */
  readonly ownerValues: SqlFragment;
  /** `work` with a handle on the owner's rows (an org's statements run each on its own; a shared page's in one transaction). */
  read<T>(work: (db: Handle) => Promise<T>): Promise<T>;
  /** `work` in one transaction. */
  transaction<T>(work: (db: Handle) => Promise<T>): Promise<T>;
}

/** An org's rows, on its org-bound handle. */
export function orgOwner(db: OrgDb): OwnerDb {
  return {
    owns: (alias) => db.inOrg(alias),
    ownerValues: sql`${db.org}::int, null::text`,
    read: (work) => work(db),
    transaction: (work) => db.transaction(work),
  };
}

/**
 * A submodule's shared pages, on the cross-org path (`reason`: why, `knowledge.<what>`): only the owner writes rows of
 * no org, and a job of no org (the shared crawl) has no org-bound handle to read them with.
 */
export function sharedOwner(services: CoreServices, submodule: string, reason: string): OwnerDb {
  const across = <T>(work: (db: Handle) => Promise<T>) => services.acrossOrgs(reason, work);
  return {
    owns: (alias) => sql`${alias === undefined ? sql`` : sql`${sql.identifier(alias)}.`}shared_scope = ${submodule}::text`,
    ownerValues: sql`null::int, ${submodule}::text`,
    read: across,
    transaction: across,
  };
}

/** A submodule's name as shared_scope holds it (the migration's check). */
export const SUBMODULE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The condition that a row of `alias` is a shared page of one of `submodules` (none: no row). `shared_scope is not
 * null` lets the planner take the partial indexes of shared rows; `= any` of an array (not `in` a subquery) is
 * leakproof, so under row-level security it may still be an index condition.
 */
export function sharedIn(submodules: string[], alias: string): SqlFragment {
  const a = sql.identifier(alias);
  return sql`(${a}.shared_scope is not null and ${a}.shared_scope = any(${submodules}::text[]))`;
}
