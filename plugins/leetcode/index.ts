// @quad/plugin-leetcode: the LeetCode module (spec "What the service does"; category Engagement, off by default).
// Members link a LeetCode username; leetcode.daily posts LeetCode's daily problem to the org's Discord channel through
// the bot, leetcode.check_solves records who solved it and, when the points module is on, awards points through its
// service `points.ledger` (optional: LeetCode works without points). README: routes, tools, jobs, settings, tables.
import { defineModule, type DashboardDecl } from '@quad/core';
import { LeetCodeSettings } from './settings.js';
import { leetcodeRoutes } from './routes.js';
import { leetcodeTools } from './tools.js';
import { checkSolvesJob, dailyJob, postJob } from './jobs.js';
import { utcDay } from './daily.js';

const dashboard: DashboardDecl = {
  // The Overview card (web/index.tsx LeetCodeCard): linked members, and today's post and solvers (three index reads).
  async overview({ db }) {
    const row = await db.one<{ linked: number; posted: boolean; solves: number; title: string | null }>`
      select (select count(*)::int from leetcode_links where ${db.inOrg()}) as linked,
             coalesce(p.status = 'posted', false) as posted, coalesce(p.solves, 0) as solves, p.title
      from (select 1) x left join leetcode_posts p on ${db.inOrg('p')} and p.date = ${utcDay(new Date())}::date`;
    return { ...row! };
  },
};

export default defineModule({
  name: 'leetcode',
  title: 'LeetCode',
  description: 'Posts LeetCode\'s daily problem to a Discord channel; members link their LeetCode username and earn points for solving it.',
  category: 'Engagement',
  coreVersion: '^0.1.0',
  // Optional: with points loaded and on, a solve earns points_per_solve through `points.ledger` (points.ts).
  needs: [{ key: 'points', label: 'Points module (solves earn points)', kind: 'module', optional: true }],
  settings: LeetCodeSettings,
  scopes: [
    { name: 'leetcode:read', description: 'Read the LeetCode daily problem the org posted and who solved it' },
    { name: 'leetcode:manage', description: 'Link and unlink members\' LeetCode usernames' },
  ],
  tables: { leetcode_settings: 'org', leetcode_links: 'org', leetcode_posts: 'org', leetcode_solves: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  routes: leetcodeRoutes,
  tools: leetcodeTools,
  jobs: [dailyJob, postJob, checkSolvesJob],
  events: ['leetcode.posted', 'leetcode.solved'],
  dashboard,
  // The LeetCode page and Overview card: web/index.tsx, built to web/dist/ (README "Page").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'leetcode', title: 'LeetCode', icon: 'code', component: 'LeetCodePage' }],
    overviewCard: 'LeetCodeCard',
  },
});
