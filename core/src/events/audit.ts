// audit(): one row per change, delete, token creation or other officer/machine action.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEntry } from '../entities/logs.js';

export interface AuditInput {
  orgId: number | null;
  /** Who acted: `officer:<chat id>`, `machine:<token id>`, `superadmin:<chat id>`, `system`, `cli`. */
  actor: string;
  /** What happened, `<module>.<verb>`, e.g. `tokens.create`. */
  action: string;
  details?: Record<string, unknown>;
}

/** Record an action in the caller's transaction, so it is kept exactly when the change is. */
export async function recordAudit(em: EntityManager, entry: AuditInput): Promise<void> {
  await em.insert(AuditEntry, {
    organization: entry.orgId,
    actor: entry.actor,
    action: entry.action,
    details: entry.details ?? {},
  });
}
