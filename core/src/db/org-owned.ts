// The org-isolation mechanism: org-owned entities are declared with `defineOrgEntity` (or spread `orgOwned` into
// their properties and set `filters: orgFilter`), so every find in a request or job sees only the bound org's rows.
// The filter does not cover QueryBuilder, raw SQL, upserts or writes (see README "Org isolation").
import { defineEntity, p, type EntityMetadataWithProperties } from '@mikro-orm/core';
import { Organization } from '../entities/organization.js';

export const ORG_FILTER = 'org';

export interface OrgFilterParams { orgId: number }

/** The `organization` property every org-owned entity has. */
export const orgOwned = {
  organization: p.manyToOne(Organization).deleteRule('cascade'),
};

/** The default `org` filter. With no params bound it throws: a query outside an org context fails closed. */
export const orgFilter = {
  [ORG_FILTER]: {
    name: ORG_FILTER,
    cond: (args: OrgFilterParams) => ({ organization: args.orgId }),
    default: true,
  },
};

type OrgOwned = typeof orgOwned;
type WithOrg<P> = Omit<OrgOwned, keyof P> & P;

/**
 * An org-owned entity: `defineEntity` with the `organization` property (many-to-one, on delete cascade) and the
 * default `org` filter already in place, so forgetting either cannot leak rows. Properties may override
 * `organization` (e.g. `orgOwned.organization.primary()` for one row per org).
 *
 *   export const Greeting = defineOrgEntity({ name: 'HelloGreeting', tableName: 'hello_greetings', properties: { … } });
 */
export function defineOrgEntity<P extends Record<string, any>, const TPK extends (keyof WithOrg<P>)[] | undefined = undefined>(
  meta: Omit<EntityMetadataWithProperties<WithOrg<P>, TPK>, 'properties'> & { properties: P },
) {
  return defineEntity<WithOrg<P>, TPK>({
    ...meta,
    filters: { ...orgFilter, ...meta.filters },
    properties: { ...orgOwned, ...meta.properties } as WithOrg<P>,
  } as EntityMetadataWithProperties<WithOrg<P>, TPK>);
}
