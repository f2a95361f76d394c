// The points module's ledger as LeetCode uses it: the service `points.ledger`, declared here with only the methods
// LeetCode calls (plugins never import each other). It is optional: the manifest lists points as an optional need and
// does not put the ref in `consumes` (which would refuse to boot without points); a solve is awarded only while the
// points module is loaded AND on for the org.
import { defineService, type CoreServices, type EntityManager } from '@quad/core';

export interface PointsLedger {
  /** The org learns of a member through Discord; in the caller's transaction. */
  joinByChatUserId(em: EntityManager, orgId: number, chatUserId: string, opts?: { username?: string | null }): Promise<{ id: number }>;
  /** One ledger row in the caller's transaction. */
  addEntry(em: EntityManager, entry: {
    orgId: number; userId: number; amount: number; source: 'award'; reason: string; awardedBy: string; ref: string;
  }): Promise<unknown>;
}

export const pointsLedger = defineService<PointsLedger>({ id: 'points.ledger', methods: ['joinByChatUserId', 'addEntry'] });

/** The ledger when the points module is loaded and on for an org with these switches; else null. */
export function ledgerFor(services: CoreServices, orgModules: Readonly<Record<string, boolean>>): PointsLedger | null {
  if (!services.registry.services.has(pointsLedger.id) || !services.registry.isEnabled(orgModules, 'points')) return null;
  return services.service(pointsLedger);
}
