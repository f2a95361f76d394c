// The submodules table: one row per org and submodule it subscribes to.
import { defineOrgEntity, p } from '@quad/core';

export const Subscription = defineOrgEntity({
  name: 'SubmoduleSubscription',
  tableName: 'submodules_subscriptions',
  properties: {
    id: p.integer().primary().autoincrement(),
    submodule: p.string(),
    subscribedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    refreshedAt: p.datetime().onCreate(() => new Date()),
  },
});
