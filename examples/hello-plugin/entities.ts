// Org-owned tables: `defineOrgEntity` adds the `organization` property and the org filter, so every query stays
// inside the caller's org.
import { defineOrgEntity, orgOwned, p } from '@quad/core';

export const Greeting = defineOrgEntity({
  name: 'HelloGreeting',
  tableName: 'hello_greetings',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Tally = defineOrgEntity({
  name: 'HelloTally',
  tableName: 'hello_tallies',
  properties: {
    // One row per org: the org is the primary key.
    organization: orgOwned.organization.primary(),
    greetings: p.integer(),
    countedAt: p.datetime(),
  },
});
