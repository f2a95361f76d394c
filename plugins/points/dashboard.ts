// The points module's part of the officer dashboard: counts for the overview, daily series for the trends.
import { bucketByDay, dayIndexSql, type DashboardDecl } from '@quad/core';

export const pointsDashboard: DashboardDecl = {
  async overview({ em, org }) {
    // Members, awarded and spent from the maintained per-member rows (points_balances), not every ledger row;
    // distinct events by a skip scan of the event index (one probe per event); the last 7 days by the date index.
    const [row] = await em.execute<{ members: string; awarded: string; spent: string; events: string; awarded_7d: string }[]>(
      `select (select count(*) from points_balances where organization_id = ? and entries > 0) as members,
              (select coalesce(sum(awarded), 0) from points_balances where organization_id = ?) as awarded,
              (select coalesce(sum(spent), 0) from points_balances where organization_id = ?) as spent,
              (with recursive e(name) as (
                 (select event_name from points_entries where organization_id = ? and event_name is not null order by event_name limit 1)
                 union all
                 select (select event_name from points_entries where organization_id = ? and event_name > e.name order by event_name limit 1)
                   from e where e.name is not null)
               select count(name) from e) as events,
              (select coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) from points_entries
                where organization_id = ? and created_at >= now() - interval '7 days') as awarded_7d`,
      [org.id, org.id, org.id, org.id, org.id, org.id]);
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
