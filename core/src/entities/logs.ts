// Core log tables: notifications (events and problems), the audit log, the error log and job runs.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { orgFilter, orgOwned } from '../db/org-owned.js';
import { Organization } from './organization.js';

export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  filters: orgFilter,
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    ...orgOwned,
    /** `event` (kept 30 days, newest 200) or `problem` (kept until its cause is fixed). */
    category: p.string().default('event'),
    /** Event kind, e.g. `order.created`. */
    kind: p.string(),
    /** Problems are keyed by their cause so re-raising updates one row. */
    problemKey: p.string().nullable(),
    title: p.string(),
    message: p.text().default(''),
    data: p.json<Record<string, unknown>>().default('{}'),
    status: p.string().default('open'),
    /** Events: when it happened. Problems: when it was last raised. */
    raisedAt: p.datetime().onCreate(() => new Date()),
    /** How often a problem was raised (1 for events). */
    occurrences: p.integer().default(1),
    resolvedAt: p.datetime().nullable(),
    /** Who resolved it: `officer:<chat id>`. */
    resolvedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

const nullableOrg = { organization: p.manyToOne(Organization).nullable().deleteRule('cascade') };

export const AuditEntry = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_log',
  filters: orgFilter,
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    ...nullableOrg,
    /** Who acted: `officer:<chat id>`, `machine:<token id>`, `system`… */
    actor: p.string(),
    action: p.string(),
    details: p.json<Record<string, unknown>>().default('{}'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const ErrorEntry = defineEntity({
  name: 'ErrorEntry',
  tableName: 'error_log',
  filters: orgFilter,
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    ...nullableOrg,
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
    /** `open` or `resolved` (Activity page, Errors tab). */
    status: p.string().default('open'),
    resolvedAt: p.datetime().nullable(),
    resolvedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const JobRun = defineEntity({
  name: 'JobRun',
  tableName: 'job_runs',
  filters: orgFilter,
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    ...nullableOrg,
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
});

export type NotificationEntity = InferEntity<typeof Notification>;
export type AuditEntryEntity = InferEntity<typeof AuditEntry>;
export type ErrorEntryEntity = InferEntity<typeof ErrorEntry>;
export type JobRunEntity = InferEntity<typeof JobRun>;
