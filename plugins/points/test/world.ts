// A signed-in world for the points tests: the member world of @quad/core/testing with the points module (and any
// other plugins a test names), and ledger helpers that write and read this module's own table. The gateway daemon is
// off here (POINTS_GATEWAY false); gateway.test.ts runs it in a worker process of its own.
import type { FastifyBaseLogger } from 'fastify';
import { startMemberWorld, type MemberWorld, type TeardownHost } from '@quad/core/testing';

export interface PointsWorld extends MemberWorld {
  /** Give a member points directly in the ledger. */
  grant(userId: number, amount: number, orgId?: number): Promise<void>;
  balance(userId: number, orgId?: number): Promise<number>;
}

export interface PointsWorldOptions {
  enforce?: boolean;
  logger?: FastifyBaseLogger;
  config?: Record<string, unknown>;
  modules?: Record<string, boolean>;
  /** More plugins beside the points module (e.g. './plugins/event_webhook'). */
  plugins?: string[];
}

export async function startPointsWorld(t: TeardownHost, options: PointsWorldOptions = {}): Promise<PointsWorld> {
  const world = await startMemberWorld(t, {
    plugins: ['./plugins/points', ...(options.plugins ?? [])],
    orgModules: options.modules ?? { points: true },
    enforce: options.enforce,
    logger: options.logger,
    config: { POINTS_GATEWAY: false, ...options.config },
  });
  return {
    ...world,
    async grant(user, amount, orgId = world.org.id) {
      await world.sql(`insert into points_entries (organization_id, user_id, amount, source, reason, awarded_by) values (?, ?, ?, 'award', 'test grant', 'system')`, [orgId, user, amount]);
    },
    async balance(user, orgId = world.org.id) {
      const [row] = await world.sql<{ b: string }>('select coalesce(sum(amount), 0) as b from points_entries where organization_id = ? and user_id = ?', [orgId, user]);
      return Number(row!.b);
    },
  };
}
