// The event_webhook table: one row per outbound webhook of an org.
import { defineOrgEntity, p } from '@quad/core';

export const Webhook = defineOrgEntity({
  name: 'EventWebhook',
  tableName: 'event_webhook_webhooks',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string(),
    /** The Discord webhook URL, encrypted (destination.ts). Never sent to a client. */
    destination: p.text(),
    /** Selected event kinds. */
    events: p.array(),
    enabled: p.boolean().default(true),
    /** The last message (delivery or test): when, whether Discord took it, for which event, why not. */
    lastAt: p.datetime().nullable(),
    lastOk: p.boolean().nullable(),
    lastEvent: p.string().nullable(),
    lastError: p.text().nullable(),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
