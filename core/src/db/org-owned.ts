// The org-isolation mechanism: org-owned entities are declared with `defineOrgEntity` (or spread `orgOwned` into
// their properties and set `filters: orgFilter`), so every find in a request or job sees only the bound org's rows.
// The filter does not cover QueryBuilder, raw SQL, upserts or writes (see README "Org isolation").
import { defineEntity, p, type EntityMetadataWithProperties } from '@mikro-orm/core';
import { Organization } from '../entities/organization.js';

export const ORG_FILTER = 'org';

/** An org's rows; or every org's, on the cross-org path's EntityManager only (across-orgs.ts). */
export type OrgFilterParams = { orgId: number } | { acrossOrgs: true };

/** The `organization` property every org-owned entity has. */
export const orgOwned = {
  organization: p.manyToOne(Organization).deleteRule('cascade'),
};

/** The default `org` filter. With no params bound it throws: a query outside an org context fails closed. */
export const orgFilter = {
  [ORG_FILTER]: {
    name: ORG_FILTER,
    cond: (args: OrgFilterParams) => ('orgId' in args ? { organization: args.orgId } : {}),
    default: true,
  },
};

/**
 * The `organization` property of tables that also hold rows of no org (the audit, error and job-run logs: a
 * superadmin action, an error before the org is known, a deployment-wide job). The `org` filter is the same, so with
 * it on a null-org row is never seen (it matches no org); only a read with the filter off (superadmin) sees them.
 */
export const nullableOrgOwned = {
  organization: p.manyToOne(Organization).nullable().deleteRule('cascade'),
};

export interface OrgEntityOptions<N extends boolean> {
  /** Rows may belong to no org (see `nullableOrgOwned`). Default: false. */
  nullableOrg?: N;
}

type OrgProperty<N extends boolean> = N extends true ? typeof nullableOrgOwned : typeof orgOwned;
type WithOrg<P, N extends boolean> = Omit<OrgProperty<N>, keyof P> & P;

/**
 * An org-owned entity: `defineEntity` with the `organization` property (many-to-one, on delete cascade) and the
 * default `org` filter already in place, so forgetting either cannot leak rows. Properties may override
 * `organization` (e.g. `orgOwned.organization.primary()` for one row per org).
 *
 *   export const Greeting = defineOrgEntity({ name: 'HelloGreeting', tableName: 'hello_greetings', properties: { … } });
 */
export function defineOrgEntity<
  P extends Record<string, any>,
  const TPK extends (keyof WithOrg<P, N>)[] | undefined = undefined,
  const N extends boolean = false,
>(
  meta: Omit<EntityMetadataWithProperties<WithOrg<P, N>, TPK>, 'properties'> & { properties: P },
  options: OrgEntityOptions<N> = {},
) {
  const org = options.nullableOrg ? nullableOrgOwned : orgOwned;
  return defineEntity<WithOrg<P, N>, TPK>({
    ...meta,
    filters: { ...orgFilter, ...meta.filters },
    properties: { ...org, ...meta.properties } as WithOrg<P, N>,
  } as EntityMetadataWithProperties<WithOrg<P, N>, TPK>);
}
