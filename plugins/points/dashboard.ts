// The points module's part of the officer dashboard: counts for the overview, daily series for the trends.
import { bucketByDay, type DashboardDecl } from '@quad/core';

export const pointsDashboard: DashboardDecl = {
  async overview({ db }) {
    // Members, awarded and spent from the maintained per-member rows (points_balances), not every ledger row;
    // distinct events by a skip scan of the event index (one probe per event); the last 7 days by the date index.
    const row = await db.one<{ members: string; awarded: string; spent: string; events: string; awarded_7d: string }>`
      select (select count(*) from points_balances where ${db.inOrg()} and entries > 0) as members,
             (select coalesce(sum(awarded), 0) from points_balances where ${db.inOrg()}) as awarded,
             (select coalesce(sum(spent), 0) from points_balances where ${db.inOrg()}) as spent,
             (with recursive e(name) as (
                (select event_name from points_entries where ${db.inOrg()} and event_name is not null order by event_name limit 1)
                union all
                select (select event_name from points_entries where ${db.inOrg()} and event_name > e.name order by event_name limit 1)
                  from e where e.name is not null)
              select count(name) from e) as events,
             (select coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) from points_entries
               where ${db.inOrg()} and created_at >= now() - interval '7 days') as awarded_7d`;
    return {
      members: Number(row!.members), points_awarded: Number(row!.awarded), points_spent: Number(row!.spent),
      events: Number(row!.events), points_awarded_7d: Number(row!.awarded_7d),
    };
  },
  async trends({ db }, { since, days }) {
    // The core's dayIndexSql (written for em.execute's `?`), with `since` as the handle's bound value.
    const from = since.toISOString();
    const rows = await db.sql<{ day: number; awarded: string; active: string }>`
      select floor(extract(epoch from (created_at - ${from}::timestamptz)) / 86400)::int as day,
             coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) as awarded,
             count(distinct user_id) filter (where amount > 0 and source <> 'refund') as active
        from points_entries
       where ${db.inOrg()} and created_at >= ${from}::timestamptz and created_at < ${from}::timestamptz + make_interval(days => ${days}::int)
       group by 1`;
    const { awarded, active } = bucketByDay(rows, days, ['awarded', 'active']);
    return [
      { key: 'points.awarded', title: 'Points awarded', values: awarded },
      { key: 'points.active_members', title: 'Members who earned points', values: active },
    ];
  },
};
