// Whose a knowledge row is (sources, crawl records, versions, passages): an org's, or a submodule's shared page
// (migrations/0005), which has no org — organization_id null, shared_scope the submodule's name —, counts against no
// org limit and is never public. Queries name the owner through ownedBy, so no org-scoped query meets a shared row.

export type Owner = { orgId: number; submodule?: never } | { submodule: string; orgId?: never };

/** The condition that a row of `alias` is the owner's. */
export function ownedBy(owner: Owner, alias: string): { sql: string; params: unknown[] } {
  return owner.submodule !== undefined
    ? { sql: `${alias}.shared_scope = ?`, params: [owner.submodule] }
    : { sql: `${alias}.organization_id = ?`, params: [owner.orgId] };
}

/** The owner columns of a new row, in this order: organization_id, shared_scope (exactly one is set). */
export const ownerColumns = (owner: Owner): [number | null, string | null] => [owner.orgId ?? null, owner.submodule ?? null];

/** A submodule's name as shared_scope holds it (the migration's check). */
export const SUBMODULE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The condition that a row of `alias` is a shared page of one of `submodules` (none: no row), with its one parameter.
 * `shared_scope is not null` lets the planner take the partial indexes of shared rows.
 */
export function sharedIn(submodules: string[], alias: string): { sql: string; params: unknown[] } {
  return {
    sql: `(${alias}.shared_scope is not null and ${alias}.shared_scope in (select jsonb_array_elements_text(?::jsonb)))`,
    params: [JSON.stringify(submodules)],
  };
}
