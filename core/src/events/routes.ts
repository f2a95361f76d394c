// The Activity page (officers of the org): notifications (events and problems) and errors with filters and
// paging, resolve / reopen / delete on many selected rows at once, the audit log (changes), the job-run log and the
// retry of a failed run.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrgDb } from '../db/org-db.js';
import { sql } from '../db/sql.js';
import { AuditEntry, ErrorEntry, JobRun, Notification, type NotificationEntity, type ErrorEntryEntity } from '../entities/logs.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { BigId, ErrorBody, OrgParams, orgParams, pageOf, pageWindow, pagingQuery } from '../http/schemas.js';
import { EVENT_RETENTION_DAYS } from './events.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

const paging = pagingQuery();
const Search = Type.String({ minLength: 1, maxLength: 200, description: 'text the title or message contains (case-insensitive)' });
const Prefix = (what: string) => Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z][a-z0-9_.:-]*$', description: `${what}, or its module prefix (\`job\` matches \`job.failed\`)` });

/** At most this many rows in one bulk action. */
export const BULK_MAX = 500;
const Ids = Type.Object({
  ids: Type.Array(BigId, { minItems: 1, maxItems: BULK_MAX, description: 'the selected rows' }),
}, { additionalProperties: false });
const BulkResult = Type.Object({ ids: Type.Array(Type.Integer(), { description: 'the rows that changed' }), count: Type.Integer() });

export const NotificationView = Type.Object({
  id: Type.Integer(),
  category: Type.Union([Type.Literal('event'), Type.Literal('problem')]),
  kind: Type.String(),
  key: Nullable(Type.String({ description: 'the cause of a problem' })),
  title: Type.String(),
  message: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  occurrences: Type.Integer({ description: 'how often a problem was raised' }),
  created_at: Time,
  raised_at: Type.String({ format: 'date-time', description: 'events: when it happened; problems: when last raised' }),
  resolved_at: Nullable(Time),
  resolved_by: Nullable(Type.String()),
});

const ErrorView = Type.Object({
  id: Type.Integer(),
  source: Type.String({ description: 'request, job or event (a failed event handler)' }),
  origin: Type.String({ description: 'the route, job or event handler' }),
  request_id: Nullable(Type.String()),
  message: Type.String(),
  log_line: Type.String(),
  host: Type.String(),
  release: Type.String(),
  stack: Nullable(Type.String()),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  created_at: Time,
  resolved_at: Nullable(Time),
  resolved_by: Nullable(Type.String()),
});

export const ChangeView = Type.Object({
  id: Type.Integer(), actor: Type.String(), action: Type.String(), details: Type.Record(Type.String(), Type.Unknown()), created_at: Time,
});
export const JobRunView = Type.Object({
  id: Type.Integer(), name: Type.String(), status: Type.String({ description: 'queued, running, succeeded, failed or skipped' }),
  attempts: Type.Integer(), error: Nullable(Type.String()), queued_at: Time, started_at: Nullable(Time), finished_at: Nullable(Time),
});

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export const notificationView = (n: NotificationEntity): Static<typeof NotificationView> => ({
  id: n.id, category: n.category as 'event' | 'problem', kind: n.kind, key: n.problemKey ?? null, title: n.title, message: n.message,
  data: n.data, status: n.status as 'open' | 'resolved', occurrences: n.occurrences, created_at: n.createdAt.toISOString(),
  raised_at: n.raisedAt.toISOString(), resolved_at: iso(n.resolvedAt), resolved_by: n.resolvedBy ?? null,
});

const errorView = (e: ErrorEntryEntity): Static<typeof ErrorView> => ({
  id: e.id, source: e.source, origin: e.origin, request_id: e.requestId ?? null, message: e.message, log_line: e.logLine, host: e.host,
  release: e.release, stack: e.stack ?? null, status: e.status as 'open' | 'resolved', created_at: e.createdAt.toISOString(),
  resolved_at: iso(e.resolvedAt), resolved_by: e.resolvedBy ?? null,
});

export const changeView = (a: { id: number; actor: string; action: string; details: Record<string, unknown>; createdAt: Date }) => ({
  id: a.id, actor: a.actor, action: a.action, details: a.details, created_at: a.createdAt.toISOString(),
});

export const jobRunView = (r: { id: number; name: string; status: string; attempts: number; error?: string | null; queuedAt: Date; startedAt?: Date | null; finishedAt?: Date | null }) => ({
  id: r.id, name: r.name, status: r.status, attempts: r.attempts, error: r.error ?? null,
  queued_at: r.queuedAt.toISOString(), started_at: iso(r.startedAt), finished_at: iso(r.finishedAt),
});

/** `%` and `_` are LIKE wildcards (and `\` its escape): the text is matched literally. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const like = (text: string) => `%${escapeLike(text)}%`;
/** `job` matches `job` and `job.*`; `job.failed` matches itself (and `job.failed.*`). */
const prefixed = (field: string, value: string) => ({ $or: [{ [field]: value }, { [field]: { $like: `${escapeLike(value)}.%` } }] });
/** Every filter the query asked for (none: every row). */
const allOf = (where: Record<string, unknown>[]) => (where.length ? { $and: where } : {}) as never;
const unique = (ids: number[]) => [...new Set(ids)];
/** The ids a `returning id` statement answered, ascending. */
const returnedIds = (rows: { id: string | number }[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

/** Events older than the retention are not listed, even before the prune job removes them. */
const retention = () => new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000);

export const activityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const auth = 'officer' as const;
  const tags = ['activity'];

  /** Open events and problems (for the badge next to the Notifications tab). */
  const openNotifications = async (em: EntityManager) => {
    const [events, problems] = await Promise.all([
      em.count(Notification, { category: 'event', status: 'open', createdAt: { $gte: retention() } }),
      em.count(Notification, { category: 'problem', status: 'open' }),
    ]);
    return { events, problems };
  };

  app.get('/api/dashboard/:org/notifications', {
    config: { auth },
    schema: {
      tags, params: OrgParams,
      summary: 'Notifications of the org (events of the last 30 days and problems), last raised first',
      querystring: Type.Object({
        ...paging,
        category: Type.Optional(Type.Union([Type.Literal('event'), Type.Literal('problem')])),
        status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])),
        kind: Type.Optional(Prefix('an event kind')),
        q: Type.Optional(Search),
      }, { additionalProperties: false }),
      response: {
        200: Type.Intersect([pageOf('items', NotificationView), Type.Object({ open: Type.Object({ events: Type.Integer(), problems: Type.Integer() }) })]),
        400: ErrorBody,
      },
    },
  }, async (request) => {
    const { page, per_page, category, status, kind, q } = request.query;
    const where: Record<string, unknown>[] = [{ $or: [{ category: 'problem' }, { createdAt: { $gte: retention() } }] }];
    if (category) where.push({ category });
    if (status) where.push({ status });
    if (kind) where.push(prefixed('kind', kind));
    if (q) where.push({ $or: [{ title: { $ilike: like(q) } }, { message: { $ilike: like(q) } }] });
    const [rows, total] = await request.em.findAndCount(Notification, allOf(where), {
      orderBy: { raisedAt: 'desc', id: 'desc' }, ...pageWindow({ page, per_page }),
    });
    return { items: rows.map(notificationView), page, per_page, total, open: await openNotifications(request.em) };
  });

  const bulk = (path: string, summary: string, action: (db: OrgDb, ids: number[], actor: string) => Promise<number[]>, audit: string) => {
    app.post(path, {
      config: { auth },
      schema: { tags, params: OrgParams, summary, body: Ids, response: { 200: BulkResult, 400: ErrorBody } },
    }, async (request) => {
      const org = request.org!;
      const actor = request.caller!.actor;
      const changed = await request.db.transaction(async (db) => {
        const done = await action(db, unique(request.body.ids), actor);
        if (done.length) await request.audit(db.em, audit, { ids: done });
        return done;
      });
      return { ids: changed, count: changed.length };
    });
  };

  const setStatus = (table: 'notifications' | 'error_log', status: 'open' | 'resolved') =>
    async (db: OrgDb, ids: number[], actor: string) => returnedIds(await db.sql<{ id: string | number }>`
      update ${sql.identifier(table)} set status = ${status}, resolved_at = ${status === 'resolved' ? sql`now()` : sql`null`},
        resolved_by = ${status === 'resolved' ? actor : null}${table === 'notifications' ? sql`, updated_at = now()` : sql``}
      where ${db.inOrg()} and id = any(${ids}::bigint[]) and status <> ${status} returning id`);

  bulk('/api/dashboard/:org/notifications/resolve', 'Resolve the selected notifications (ids of other orgs or already resolved ones are left alone)',
    setStatus('notifications', 'resolved'), 'notifications.resolve');
  bulk('/api/dashboard/:org/notifications/reopen', 'Reopen the selected notifications',
    setStatus('notifications', 'open'), 'notifications.reopen');
  bulk('/api/dashboard/:org/notifications/delete', 'Delete the selected events; problems cannot be deleted (400 problem_not_deletable, nothing deleted)',
    async (db, ids) => {
      const problems = await db.sql<{ id: string | number }>`
        select id from notifications where ${db.inOrg()} and category = 'problem' and id = any(${ids}::bigint[]) order by id`;
      if (problems.length) {
        throw badRequest('Problems cannot be deleted: they disappear when their cause is fixed (resolve them instead)', 'problem_not_deletable',
          { ids: problems.map((p) => Number(p.id)) });
      }
      return returnedIds(await db.sql<{ id: string | number }>`
        delete from notifications where ${db.inOrg()} and category = 'event' and id = any(${ids}::bigint[]) returning id`);
    }, 'notifications.delete');

  app.get('/api/dashboard/:org/errors', {
    config: { auth },
    schema: {
      tags, params: OrgParams,
      summary: 'The org\'s error log (requests, jobs and event handlers that failed), newest first',
      querystring: Type.Object({
        ...paging,
        source: Type.Optional(Type.Union([Type.Literal('request'), Type.Literal('job'), Type.Literal('event')])),
        status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])),
        q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'text the message or origin contains (case-insensitive)' })),
      }, { additionalProperties: false }),
      response: { 200: Type.Intersect([pageOf('items', ErrorView), Type.Object({ open: Type.Integer() })]), 400: ErrorBody },
    },
  }, async (request) => {
    const { page, per_page, source, status, q } = request.query;
    const where: Record<string, unknown>[] = [];
    if (source) where.push({ source });
    if (status) where.push({ status });
    if (q) where.push({ $or: [{ message: { $ilike: like(q) } }, { origin: { $ilike: like(q) } }] });
    const [[rows, total], open] = await Promise.all([
      request.em.findAndCount(ErrorEntry, allOf(where), { orderBy: { id: 'desc' }, ...pageWindow({ page, per_page }) }),
      request.em.fork().count(ErrorEntry, { status: 'open' }),
    ]);
    return { items: rows.map(errorView), page, per_page, total, open };
  });

  bulk('/api/dashboard/:org/errors/resolve', 'Resolve the selected errors', setStatus('error_log', 'resolved'), 'errors.resolve');
  bulk('/api/dashboard/:org/errors/reopen', 'Reopen the selected errors', setStatus('error_log', 'open'), 'errors.reopen');
  bulk('/api/dashboard/:org/errors/delete', 'Delete the selected errors', async (db, ids) =>
    returnedIds(await db.sql<{ id: string | number }>`delete from error_log where ${db.inOrg()} and id = any(${ids}::bigint[]) returning id`),
  'errors.delete');

  app.get('/api/dashboard/:org/changes', {
    config: { auth },
    schema: {
      tags, params: OrgParams,
      summary: 'The org\'s audit log (changes, deletes, tokens made…), newest first',
      querystring: Type.Object({
        ...paging,
        action: Type.Optional(Prefix('an action (`org.branding`)')),
        actor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'exactly this actor, e.g. `officer:<chat id>`' })),
      }, { additionalProperties: false }),
      response: { 200: pageOf('items', ChangeView), 400: ErrorBody },
    },
  }, async (request) => {
    const { page, per_page, action, actor } = request.query;
    const where: Record<string, unknown>[] = [];
    if (action) where.push(prefixed('action', action));
    if (actor) where.push({ actor });
    const [rows, total] = await request.em.findAndCount(AuditEntry, allOf(where), {
      orderBy: { id: 'desc' }, ...pageWindow({ page, per_page }),
    });
    return { items: rows.map(changeView), page, per_page, total };
  });

  app.get('/api/dashboard/:org/job-runs', {
    config: { auth },
    schema: {
      tags, params: OrgParams,
      summary: 'The org\'s job runs, newest first',
      querystring: Type.Object({
        ...paging,
        status: Type.Optional(Type.Union(['queued', 'running', 'succeeded', 'failed', 'skipped'].map((s) => Type.Literal(s)))),
        name: Type.Optional(Prefix('a job name (`event_webhook.deliver`)')),
      }, { additionalProperties: false }),
      response: { 200: pageOf('items', JobRunView), 400: ErrorBody },
    },
  }, async (request) => {
    const { page, per_page, status, name } = request.query;
    const where: Record<string, unknown>[] = [];
    if (status) where.push({ status });
    if (name) where.push(prefixed('name', name));
    const [rows, total] = await request.em.findAndCount(JobRun, allOf(where), {
      orderBy: { id: 'desc' }, ...pageWindow({ page, per_page }),
    });
    return { items: rows.map(jobRunView), page, per_page, total };
  });

  app.post('/api/dashboard/:org/job-runs/:id/retry', {
    config: { auth },
    schema: {
      tags, params: orgParams({ id: BigId }),
      summary: 'Run a failed job again, with the same payload, as a new run (once per failed run)',
      response: { 201: Type.Object({ run: JobRunView, retry_of: Type.Integer() }), 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const run = await request.db.transaction(async (db) => {
      const { em } = db;
      // The row lock makes two retries of one run (a double click, two officers) take turns: the second sees the first.
      const row = await db.one<{ id: string | number; name: string; status: string; payload: Record<string, unknown> }>`
        select id, name, status, payload from job_runs where ${db.inOrg()} and id = ${request.params.id} for update`;
      if (!row) throw notFound('No such job run', 'run_not_found');
      if (row.status !== 'failed') throw conflict(`Only a failed run can be retried; this one is ${row.status}`, 'run_not_failed', { status: row.status });
      const job = app.quad.registry.jobs.get(row.name);
      if (!job) throw conflict(`${row.name} is no longer declared by a loaded module`, 'job_unavailable');
      if (!app.quad.registry.isEnabled(org.modules as Record<string, boolean>, job.module)) {
        throw conflict(`The ${job.module} module is off for this org`, 'module_off', { module: job.module });
      }
      const earlier = await db.one<{ retry: string }>`select details->>'retry' as retry from audit_log
          where ${db.inOrg()} and action = 'job_runs.retry' and details->>'run' = ${String(row.id)} limit 1`;
      if (earlier) throw conflict(`This run was already retried as run ${earlier.retry}`, 'already_retried', { retry: Number(earlier.retry) });
      // startJob answers 409 job_running when the job runs one at a time and a run of it is queued or running.
      const started = await app.quad.startJob(em, row.name, row.payload, { orgId: org.id });
      await request.audit(em, 'job_runs.retry', { run: Number(row.id), retry: started.runId, job: row.name });
      return em.findOneOrFail(JobRun, { id: started.runId });
    });
    return reply.code(201).send({ run: jobRunView(run), retry_of: request.params.id });
  });
};
