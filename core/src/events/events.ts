// emit(): every event becomes a notification row for its org (delivery to webhooks is added by the events module).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Notification } from '../entities/logs.js';

/** Events kept per org; older ones are dropped as new ones arrive. */
export const EVENTS_KEPT_PER_ORG = 200;

export interface EventInput {
  orgId: number;
  /** Event kind, e.g. `order.created`, `job.failed`. */
  kind: string;
  title: string;
  message?: string;
  data?: Record<string, unknown>;
}

/** Store an event as a notification, in the caller's transaction when it has one. */
export async function emitEvent(em: EntityManager, event: EventInput): Promise<void> {
  await em.insert(Notification, {
    organization: event.orgId,
    category: 'event',
    kind: event.kind,
    title: event.title,
    message: event.message ?? '',
    data: event.data ?? {},
  });
  await em.execute(
    `delete from notifications where organization_id = ? and category = 'event' and id not in (
       select id from notifications where organization_id = ? and category = 'event' order by created_at desc, id desc limit ?)`,
    [event.orgId, event.orgId, EVENTS_KEPT_PER_ORG],
  );
}
