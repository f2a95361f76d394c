// The event pipeline. emit() stores an event as a notification of its org (events are kept 30 days, at most the
// newest 200 per org) and hands it to the event handlers of every module that is on for the org, inside the
// emitting transaction: a handler enqueues work there (e.g. a webhook delivery job), so a rolled-back emitter
// enqueues nothing. Each handler runs in its own savepoint: a failing handler is rolled back, logged and written
// to the error log, and neither the event nor the emitter's work is lost.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { ORG_FILTER } from '../db/org-owned.js';
import type { Registry } from '../modules/registry.js';
import type { EmittedEvent } from '../modules/types.js';
import type { AcrossOrgsDb, CoreServices, EventInput } from '../core-services.js';
import { orgDbFor, type OrgDb } from '../db/org-db.js';

/** Events kept per org; older ones are dropped as new ones arrive. Problems do not count. */
export const EVENTS_KEPT_PER_ORG = 200;
/** Days an event is kept (and listed). */
export const EVENT_RETENTION_DAYS = 30;
/** Stored (and sent) titles and messages are cut to Discord's embed limits. */
export const TITLE_MAX = 256;
export const MESSAGE_MAX = 4096;

/** Event kinds the core emits itself: a job that failed for good, an unhandled error in a request of the org. */
export const JOB_FAILED = 'job.failed';
export const ERROR_UNHANDLED = 'error.unhandled';
export const CORE_EVENT_KINDS = [JOB_FAILED, ERROR_UNHANDLED] as const;

export type { EventInput } from '../core-services.js';

export interface EventKind { kind: string; module: string }

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export class EventPipeline {
  private readonly kinds = new Map<string, string>();
  private services: CoreServices | null = null;

  constructor(private readonly registry: Registry, private readonly log: FastifyBaseLogger) {
    for (const mod of registry.modules) {
      for (const kind of mod.events) if (!this.kinds.has(kind)) this.kinds.set(kind, mod.name);
    }
  }

  /** The services handlers receive (they are built after the pipeline). */
  bind(services: CoreServices): void {
    this.services = services;
  }

  /** Every event kind a loaded module declares, with the module that declares it, sorted by kind. */
  catalog(): EventKind[] {
    return [...this.kinds].map(([kind, module]) => ({ kind, module })).sort((a, b) => a.kind.localeCompare(b.kind));
  }

  /** Store the event and run the matching handlers, in the caller's transaction (or a new one). */
  async emit(em: EntityManager, input: EventInput): Promise<EmittedEvent> {
    if (!this.kinds.has(input.kind)) {
      throw new Error(`emit: no loaded module declares the event kind "${input.kind}" (list it in the manifest's events)`);
    }
    const run = async (tem: EntityManager) => {
      const title = cut(String(input.title ?? '').trim() || input.kind, TITLE_MAX);
      const message = cut(input.message ?? '', MESSAGE_MAX);
      const data = input.data ?? {};
      // The insert and the prune in one statement. The prune's subqueries see the org's events as they were
      // before this one (the newest of them), so it keeps the newest 199 of those: 200 with the new one. Both walk
      // the index notifications_org_events_newest; an org under the cap deletes nothing.
      const db = orgDbFor(tem, input.orgId);
      const row = (await db.one<{ id: string | number; created_at: Date }>`
        with pruned as (
          delete from notifications where id in (
            (select id from notifications where ${db.inOrg()} and category = 'event'
              order by created_at desc, id desc offset ${EVENTS_KEPT_PER_ORG - 1})
            union all
            (select id from notifications where ${db.inOrg()} and category = 'event'
               and created_at < now() - make_interval(days => ${EVENT_RETENTION_DAYS})))
        )
        insert into notifications (organization_id, category, kind, title, message, data)
        values (${db.org}, 'event', ${input.kind}, ${title}, ${message}, ${JSON.stringify(data)}::jsonb) returning id, created_at`)!;
      const event: EmittedEvent = {
        id: Number(row.id), orgId: input.orgId, kind: input.kind, title, message, data, createdAt: new Date(row.created_at),
      };
      await this.dispatch(tem, event);
      return event;
    };
    // Handlers enqueue work with the event, so they share its transaction; with none there is nothing to tie.
    if (em.isInTransaction() || !this.handlersOf(input.kind).length) return run(em);
    return em.transactional(run);
  }

  private handlersOf(kind: string) {
    return this.registry.modules.flatMap((mod) => mod.eventHandlers
      .filter((h) => h.events === '*' || h.events.includes(kind))
      .map((h) => ({ module: mod.name, handler: h.handler })));
  }

  private async dispatch(em: EntityManager, event: EmittedEvent): Promise<void> {
    const handlers = this.handlersOf(event.kind);
    if (!handlers.length) return;
    const [org] = await em.execute<{ modules: Record<string, boolean> }[]>('select modules from organizations where id = ?', [event.orgId]);
    const services = this.services;
    if (!services) throw new Error('EventPipeline: bind(services) was not called');
    for (const { module, handler } of handlers) {
      if (!this.registry.isEnabled(org?.modules ?? {}, module)) continue;
      const log = this.log.child({ event: event.kind, event_id: event.id, module });
      try {
        // A nested transactional() is a savepoint: a failing handler takes back only its own writes.
        await em.transactional(async (sp) => {
          sp.setFilterParams(ORG_FILTER, { orgId: event.orgId });
          // The event's org's handle, also where the emitter is the cross-org path (a run lost with its worker is
          // announced in the sweep's transaction): its conditions then keep the handler to the org.
          let db: OrgDb | undefined;
          await handler({ em: sp, services, log, get db() { return (db ??= orgDbFor(sp, event.orgId)); } }, event);
        });
      } catch (err) {
        const line = `event handler of module ${module} failed for ${event.kind} (event ${event.id}): ${err instanceof Error ? err.message : String(err)}`;
        log.error({ err }, line);
        await services.logError({ orgId: event.orgId, source: 'event', origin: `${module} handler of ${event.kind}`, error: err, logLine: line })
          .catch((logErr) => log.error({ err: logErr }, 'could not write the error log'));
      }
    }
  }
}

/** Every org's events beyond the newest 200 or older than 30 days (the daily events.prune job). */
export async function pruneAllEvents(all: AcrossOrgsDb): Promise<number> {
  const old = await all.run`delete from notifications
    where category = 'event' and created_at < now() - make_interval(days => ${EVENT_RETENTION_DAYS})`;
  const over = await all.run`delete from notifications n using (
       select id, row_number() over (partition by organization_id order by created_at desc, id desc) as rank
       from notifications where category = 'event') ranked
     where n.id = ranked.id and ranked.rank > ${EVENTS_KEPT_PER_ORG}`;
  return old + over;
}
