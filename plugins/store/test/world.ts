// A signed-in world for the store tests: the member world of @quad/core/testing with the points and store
// modules. Balances are read through the points ledger service, as the store reads them.
import type { FastifyBaseLogger } from 'fastify';
import { startMemberWorld, type MemberWorld, type TeardownHost } from '@quad/core/testing';
import { pointsLedger } from '../points-ledger.js';

export interface StoreWorld extends MemberWorld {
  /** Give a member points (a ledger row written directly, as test setup). */
  grant(userId: number, amount: number, orgId?: number): Promise<void>;
  /** The member's balance, through the service `points.ledger`. */
  balance(userId: number, orgId?: number): Promise<number>;
}

export async function startStoreWorld(t: TeardownHost, options: { logger?: FastifyBaseLogger; config?: Record<string, unknown> } = {}): Promise<StoreWorld> {
  const world = await startMemberWorld(t, {
    plugins: ['./plugins/points', './plugins/store'],
    orgModules: { points: true, store: true },
    logger: options.logger,
    config: { POINTS_GATEWAY: false, ...options.config },
  });
  const ledger = world.quad.services.service(pointsLedger);
  return {
    ...world,
    async grant(user, amount, orgId = world.org.id) {
      await world.sql(`insert into points_entries (organization_id, user_id, amount, source, reason, awarded_by) values (?, ?, ?, 'award', 'test grant', 'system')`, [orgId, user, amount]);
    },
    // On the service's EntityManager bound to the org, as the store's routes call the ledger.
    balance: (user, orgId = world.org.id) => ledger.balanceOf(world.quad.emFor(orgId), orgId, user),
  };
}
