// @quad/plugin-points: the points module. Members earn points (officer awards, event check-ins, messages on the
// org's Discord server) into a signed ledger; the balance is the sum of a member's rows. Other modules use the
// ledger through the service `points.ledger` (provided below), never by importing this package: the store spends
// points through it, inside its own transaction.
import { defineModule, provide, Type } from '@quad/core';
import { PointsEntry, PointsMember } from './entities.js';
import { ledger, pointsLedger } from './ledger.js';
import { pointsRoutes } from './routes.js';
import { gatewayDaemon } from './gateway.js';
import { MEMBER_JOINED_EVENT } from './messages.js';
import { pointsDashboard } from './dashboard.js';

export { pointsLedger, type PointsLedger, type Member, type MemberView, type KnownBy, type NewEntry, type EntryView } from './ledger.js';
export {
  awardForMessage, recordMemberJoined, messageFromGateway, memberFromGateway, snowflakeTime, MEMBER_JOINED_EVENT,
  type MessageSeen, type MessageAward, type MemberJoin, type MemberJoined,
} from './messages.js';
export { readCheckins, parseCsv, CHECKIN_MAX_ROWS, type CheckinRow, type CsvProblem } from './csv.js';
export { gatewayDaemon, restBase, GATEWAY_INTENTS, FATAL_CLOSE_CODES } from './gateway.js';

export default defineModule({
  name: 'points',
  title: 'Points',
  description: 'Members earn points for messages, event check-ins and officer awards; leaderboards and member lists.',
  category: 'Engagement',
  coreVersion: '^0.1.0',
  tables: { points_entries: 'org', points_members: 'org', points_balances: 'org' },
  entities: [PointsEntry, PointsMember],
  provides: [provide(pointsLedger, ledger)],
  migrations: new URL('./migrations/', import.meta.url),
  routes: pointsRoutes,
  daemons: [gatewayDaemon],
  // A member joining the org's Discord server (the gateway's GUILD_MEMBER_ADD): a notification, and outbound webhooks.
  events: [MEMBER_JOINED_EVENT],
  dashboard: pointsDashboard,
  // The Points page and Overview card: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'points', title: 'Points', icon: 'star', component: 'PointsPage' }],
    overviewCard: 'PointsCard',
  },
  settings: Type.Object({
    POINTS_GATEWAY: Type.Boolean({
      default: true,
      description: 'run the Discord gateway connection (points per message) in a worker when BOT_TOKEN is set; false to run without it',
    }),
  }),
});
