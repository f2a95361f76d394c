// @quad/plugin-points: the points module. Members earn points (officer awards, event check-ins, messages on the
// org's Discord server) into a signed ledger; the balance is the sum of a member's rows. The ledger functions
// exported below are the module's public API: the store spends points through them, inside its own transaction.
import { defineModule, Type } from '@quad/core';
import { PointsEntry } from './entities.js';
import { pointsRoutes } from './routes.js';
import { gatewayDaemon } from './gateway.js';
import { pointsDashboard } from './dashboard.js';

export { PointsEntry, ENTRY_SOURCES, type EntrySource } from './entities.js';
export {
  addEntry, balanceOf, lockMember, memberByEmail, memberByChatUserId, ensureMemberByEmail, ensureMemberByChatUserId,
  normalizeEmail, entryView, type Member, type NewEntry, type EntryView,
} from './ledger.js';
export { awardForMessage, recordMemberJoined, messageFromGateway, memberFromGateway, snowflakeTime, type MessageSeen, type MessageAward } from './messages.js';
export { readCheckins, parseCsv, CHECKIN_MAX_ROWS, type CheckinRow, type CsvProblem } from './csv.js';
export { gatewayDaemon, restBase, GATEWAY_INTENTS } from './gateway.js';

export default defineModule({
  name: 'points',
  title: 'Points',
  description: 'Members earn points for messages, event check-ins and officer awards; leaderboards and member lists.',
  category: 'Engagement',
  entities: [PointsEntry],
  migrations: new URL('./migrations/', import.meta.url),
  routes: pointsRoutes,
  daemons: [gatewayDaemon],
  dashboard: pointsDashboard,
  settings: Type.Object({
    POINTS_GATEWAY: Type.Boolean({
      default: true,
      description: 'run the Discord gateway connection (points per message) in a worker when BOT_TOKEN is set; false to run without it',
    }),
  }),
});
