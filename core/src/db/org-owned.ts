// The org-isolation mechanism: org-owned entities spread `orgOwned` into their properties and set
// `filters: orgFilter`, so every find in a request or job sees only the bound org's rows.
// The filter does not cover QueryBuilder, raw SQL, upserts or writes (see README "Org isolation").
import { p } from '@mikro-orm/core';
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
