// Org-owned tables: spreading `orgOwned` and setting `orgFilter` keeps every query inside the caller's org.
import { defineEntity, orgFilter, orgOwned, p } from '@quad/core';

export const Greeting = defineEntity({
  name: 'HelloGreeting',
  tableName: 'hello_greetings',
  filters: orgFilter,
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    ...orgOwned,
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Tally = defineEntity({
  name: 'HelloTally',
  tableName: 'hello_tallies',
  filters: orgFilter,
  properties: {
    ...orgOwned,
    organization: orgOwned.organization.primary(),
    greetings: p.integer(),
    countedAt: p.datetime(),
  },
});
