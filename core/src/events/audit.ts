// audit(): one row per change, delete, token creation or other officer/machine action.
import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQueryOn } from '../db/raw-query.js';
import type { PreparedQuery } from '../db/raw-query.js';
import { compileSql, prepared, sql } from '../db/sql.js';

export interface AuditInput {
  orgId: number | null;
  /** Who acted: `officer:<chat id>`, `machine:<token id>`, `superadmin:<chat id>`, `system`, `cli`. */
  actor: string;
  /** What happened, `<module>.<verb>`, e.g. `tokens.create`. */
  action: string;
  details?: Record<string, unknown>;
}

/**
 * Record an action in the caller's transaction, so it is kept exactly when the change is. Nothing is read back: a
 * row of no org (a superadmin's action, an officer's own app token) may be written in any unit of work, but row-level
 * security shows it to the cross-org path only, so an insert returning it would be refused.
 */
export async function recordAudit(em: EntityManager, entry: AuditInput): Promise<void> {
  await rawQueryOn(em)(auditStatement(entry));
}

/** The audit row as one prepared statement, for the core's raw paths (a tool call refused before it ran). */
export function auditStatement(entry: AuditInput): PreparedQuery {
  return prepared('quad_audit_insert', sql`
    insert into audit_log (organization_id, actor, action, details)
    values (${entry.orgId}::integer, ${entry.actor}, ${entry.action}, ${entry.details ?? {}}::jsonb)`);
}

/**
 * `statement` (one that answers rows, e.g. `… returning`) and the audit row in one statement: the row is written
 * only when `statement` answers a row, so it is kept exactly when the change is, with no statement of its own.
 */
export function audited(statement: PreparedQuery, entry: AuditInput): PreparedQuery {
  const row = compileSql(sql`insert into audit_log (organization_id, actor, action, details)
    select ${entry.orgId}::integer, ${entry.actor}::text, ${entry.action}::text, ${entry.details ?? {}}::jsonb from done limit 1`, statement.values.length);
  return {
    name: `${statement.name}+audit`,
    text: `with done as (${statement.text}), audited as (${row.text}) select * from done`,
    values: [...statement.values, ...row.values],
  };
}
