// Delivery: the event handler enqueues one `event_webhook.deliver` job per enabled webhook that selected the
// event (in the emitting transaction), and the job posts the event to Discord, stores the result on the webhook
// and retries (5 attempts, graphile-worker's backoff). A webhook that still fails after the last attempt raises
// the problem `event_webhook.delivery:<id>`; its next successful message clears it.
import { defineJob, describeWebhookFailure, isAllowedWebhookUrl, Type, type CoreServices, type EntityManager, type EventHandlerDecl } from '@quad/core';
import { Webhook } from './entities.js';
import { DestinationUnreadable, openDestination } from './destination.js';
import { eventMessage } from './embed.js';

export const DELIVER_JOB = 'event_webhook.deliver';
export const DELIVER_MAX_ATTEMPTS = 5;

export const problemKey = (webhookId: number) => `event_webhook.delivery:${webhookId}`;

export type SendResult = { ok: true } | { ok: false; error: string };

type WebhookRow = { id: number; name: string; destination: string };

/** Post a message to a webhook's destination (checked against DISCORD_WEBHOOK_URL_BASE first). Never throws. */
export async function send(em: EntityManager, services: CoreServices, orgId: number, hook: WebhookRow, body: Record<string, unknown>): Promise<SendResult> {
  let url: string;
  try {
    url = await openDestination(em, services, orgId, hook.id, hook.destination);
  } catch (err) {
    return { ok: false, error: err instanceof DestinationUnreadable ? `The destination cannot be read: ${err.message}` : 'The destination cannot be read' };
  }
  if (!isAllowedWebhookUrl(url, services.settings.DISCORD_WEBHOOK_URL_BASE)) {
    return { ok: false, error: 'The destination is no longer an allowed Discord webhook URL (DISCORD_WEBHOOK_URL_BASE changed); set it again' };
  }
  try {
    await services.discord.executeWebhook(url, body);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: describeWebhookFailure(err, url) };
  }
}

/** Store the result of the last message on the webhook. */
export async function recordResult(em: EntityManager, webhookId: number, event: string, result: SendResult): Promise<void> {
  await em.nativeUpdate(Webhook, { id: webhookId }, {
    lastAt: new Date(), lastOk: result.ok, lastEvent: event, lastError: result.ok ? null : result.error,
  });
}

const EventPayload = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  title: Type.String(),
  message: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
});

export const deliverJob = defineJob({
  name: DELIVER_JOB,
  description: 'Posts one event to one webhook\'s Discord channel and stores the result on the webhook; retried on failure.',
  payload: Type.Object({ webhook_id: Type.Integer({ minimum: 1 }), event: EventPayload }, { additionalProperties: false }),
  maxAttempts: DELIVER_MAX_ATTEMPTS,
  async handler({ em, org, payload, services, attempt, log }) {
    const hook = await em.findOne(Webhook, { id: payload.webhook_id });
    const { event } = payload;
    // Deleted, switched off or unselected since the event: the officer no longer wants it.
    if (!hook || !hook.enabled || !hook.events.includes(event.kind)) {
      log.info(`event_webhook: webhook ${payload.webhook_id} no longer takes ${event.kind}; not sent`);
      return;
    }
    const result = await send(em, services, org!.id, hook, eventMessage(event, org!));
    await recordResult(em, hook.id, event.kind, result);
    if (result.ok) {
      await services.clearProblem(em, org!.id, problemKey(hook.id));
      return;
    }
    if (attempt >= DELIVER_MAX_ATTEMPTS) {
      await services.raiseProblem(em, {
        orgId: org!.id, key: problemKey(hook.id), kind: 'event_webhook.delivery_failed',
        title: `Webhook "${hook.name}" cannot deliver events`, message: result.error, data: { webhook_id: hook.id, event: event.kind },
      });
    }
    throw new Error(`Webhook ${hook.id} (${hook.name}): ${result.error}`);
  },
});

/**
 * Every event of an org whose module is on: one delivery job per enabled webhook that selected its kind. It runs on
 * the emitter's EntityManager (its transaction), which the core filters to the event's org for the handler; the
 * find names the org too, so it reads that org's webhooks whatever EntityManager emitted.
 */
export const enqueueDeliveries: EventHandlerDecl = {
  events: '*',
  async handler({ em, services }, event) {
    // A failed delivery is not delivered: to a broken webhook that would loop (failure, event, failure…).
    if (event.kind === 'job.failed' && event.data.job === DELIVER_JOB) return;
    const hooks = await em.find(Webhook, { organization: event.orgId, enabled: true }, { orderBy: { id: 'asc' } });
    for (const hook of hooks.filter((h) => h.events.includes(event.kind))) {
      await services.startJob(em, DELIVER_JOB, {
        webhook_id: hook.id,
        event: { id: event.id, kind: event.kind, title: event.title, message: event.message, data: event.data, created_at: event.createdAt.toISOString() },
      }, { orgId: event.orgId });
    }
  },
};
