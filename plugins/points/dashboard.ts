// The points module's part of the officer dashboard: counts for the overview, daily series for the trends.
import { bucketByDay, dayIndexSql, type DashboardDecl } from '@quad/core';

export const pointsDashboard: DashboardDecl = {
  async overview({ em, org }) {
    const [row] = await em.execute<{ members: string; awarded: string; spent: string; events: string; awarded_7d: string }[]>(
      `select count(distinct user_id) as members,
              coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) as awarded,
              coalesce(-sum(amount) filter (where amount < 0), 0) as spent,
              count(distinct event_name) as events,
              coalesce(sum(amount) filter (where amount > 0 and source <> 'refund' and created_at >= now() - interval '7 days'), 0) as awarded_7d
         from points_entries where organization_id = ?`, [org.id]);
    return {
      members: Number(row!.members), points_awarded: Number(row!.awarded), points_spent: Number(row!.spent),
      events: Number(row!.events), points_awarded_7d: Number(row!.awarded_7d),
    };
  },
  async trends({ em, org }, { since, days }) {
    const rows = await em.execute<{ day: number; awarded: string; active: string }[]>(
      `select ${dayIndexSql('created_at')} as day,
              coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) as awarded,
              count(distinct user_id) filter (where amount > 0 and source <> 'refund') as active
         from points_entries
        where organization_id = ? and created_at >= ? and created_at < ?::timestamptz + make_interval(days => ?)
        group by 1`, [since, org.id, since, since, days]);
    const { awarded, active } = bucketByDay(rows, days, ['awarded', 'active']);
    return [
      { key: 'points.awarded', title: 'Points awarded', values: awarded },
      { key: 'points.active_members', title: 'Members who earned points', values: active },
    ];
  },
};
