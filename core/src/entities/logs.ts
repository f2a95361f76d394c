// Core log tables: notifications (events and problems), the audit log, the error log and job runs.
import { p, type InferEntity } from '@mikro-orm/core';
import { defineOrgEntity } from '../db/org-owned.js';

// Properties the log tables share. The audit, error and job-run logs also hold rows of no org (a superadmin
// action, an error before the org is known, a deployment-wide job): the org filter hides those from every org, and
// only the superadmin's reads, with the filter off, see them.
const logId = { id: p.bigint('number').primary().autoincrement() };
const createdAt = { createdAt: p.datetime().onCreate(() => new Date()) };
/** An officer resolves and reopens notifications and errors on the Activity page (`status` `open` or `resolved`). */
const resolution = {
  status: p.string().default('open'),
  resolvedAt: p.datetime().nullable(),
  /** Who resolved it: `officer:<chat id>`. */
  resolvedBy: p.string().nullable(),
};

export const Notification = defineOrgEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    ...logId,
    /** `event` (kept 30 days, newest 200) or `problem` (kept until its cause is fixed). */
    category: p.string().default('event'),
    /** Event kind, e.g. `order.created`. */
    kind: p.string(),
    /** Problems are keyed by their cause so re-raising updates one row. */
    problemKey: p.string().nullable(),
    title: p.string(),
    message: p.text().default(''),
    data: p.json<Record<string, unknown>>().default('{}'),
    ...resolution,
    /** Events: when it happened. Problems: when it was last raised. */
    raisedAt: p.datetime().onCreate(() => new Date()),
    /** How often a problem was raised (1 for events). */
    occurrences: p.integer().default(1),
    ...createdAt,
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const AuditEntry = defineOrgEntity({
  name: 'AuditEntry',
  tableName: 'audit_log',
  properties: {
    ...logId,
    /** Who acted: `officer:<chat id>`, `machine:<token id>`, `system`… */
    actor: p.string(),
    action: p.string(),
    details: p.json<Record<string, unknown>>().default('{}'),
    ...createdAt,
  },
}, { nullableOrg: true });

export const ErrorEntry = defineOrgEntity({
  name: 'ErrorEntry',
  tableName: 'error_log',
  properties: {
    ...logId,
    /** `request`, `job` or `event` (an event handler that failed). */
    source: p.string(),
    /** `GET /api/x/:y` or the job name. */
    origin: p.string(),
    requestId: p.string().nullable(),
    message: p.text(),
    /** The logger line written for the error. */
    logLine: p.text(),
    host: p.string(),
    release: p.string(),
    stack: p.text().nullable(),
    ...resolution,
    ...createdAt,
  },
}, { nullableOrg: true });

export const JobRun = defineOrgEntity({
  name: 'JobRun',
  tableName: 'job_runs',
  properties: {
    ...logId,
    name: p.string(),
    /** Set for one-at-a-time jobs: at most one queued or running run per (name, scope). */
    scopeKey: p.string().nullable(),
    /** queued, running, succeeded or failed. */
    status: p.string(),
    payload: p.json<Record<string, unknown>>().default('{}'),
    attempts: p.integer().default(0),
    error: p.text().nullable(),
    queuedAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
}, { nullableOrg: true });

export type NotificationEntity = InferEntity<typeof Notification>;
export type AuditEntryEntity = InferEntity<typeof AuditEntry>;
export type ErrorEntryEntity = InferEntity<typeof ErrorEntry>;
export type JobRunEntity = InferEntity<typeof JobRun>;
