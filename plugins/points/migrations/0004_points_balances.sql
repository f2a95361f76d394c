-- A member's balance in an org, maintained: the sum of their points_entries rows, kept equal to it by the
-- statement triggers below in the same transaction as every ledger write (insert, delete, update), so reading or
-- locking a balance costs one row however long the member's history is. lockMember locks this row (creating it
-- at 0 for a member with no rows yet) and reads the balance under the lock.
create table points_balances (
  organization_id integer not null references organizations (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  balance bigint not null default 0,
  -- what the dashboard sums per org: points awarded (positive rows that are not refunds) and spent (negative rows)
  awarded bigint not null default 0,
  spent bigint not null default 0,
  -- how many rows the member has (a member with none has a row here only from lockMember)
  entries integer not null default 0,
  primary key (organization_id, user_id)
);

-- One statement trigger for every ledger write: rows removed (delete, and the old side of an update) are taken off
-- the member's balance row, which exists already (or went with its org or user, on cascade); rows added (insert,
-- and the new side of an update) are upserted. Members go in key order, so concurrent bulk writes lock them in one
-- order. (PL/pgSQL plans each statement when it first runs, so a branch that names a transition table the firing
-- statement lacks is never planned.)
create function points_balances_apply() returns trigger language plpgsql as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    update points_balances b set balance = b.balance - d.amount, awarded = b.awarded - d.awarded, spent = b.spent - d.spent, entries = b.entries - d.entries
      from (select organization_id, user_id, sum(amount) as amount, coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) as awarded,
                   coalesce(-sum(amount) filter (where amount < 0), 0) as spent, count(*) as entries
              from old_rows group by 1, 2 order by 1, 2) d
     where b.organization_id = d.organization_id and b.user_id = d.user_id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into points_balances (organization_id, user_id, balance, awarded, spent, entries)
    select organization_id, user_id, sum(amount), coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0),
           coalesce(-sum(amount) filter (where amount < 0), 0), count(*)
      from new_rows group by 1, 2 order by 1, 2
    on conflict (organization_id, user_id) do update set balance = points_balances.balance + excluded.balance,
      awarded = points_balances.awarded + excluded.awarded, spent = points_balances.spent + excluded.spent,
      entries = points_balances.entries + excluded.entries;
  end if;
  return null;
end $$;

create trigger points_balances_on_insert after insert on points_entries
  referencing new table as new_rows for each statement execute function points_balances_apply();
create trigger points_balances_on_delete after delete on points_entries
  referencing old table as old_rows for each statement execute function points_balances_apply();
create trigger points_balances_on_update after update on points_entries
  referencing old table as old_rows new table as new_rows for each statement execute function points_balances_apply();

-- Backfill: every member's sum so far.
insert into points_balances (organization_id, user_id, balance, awarded, spent, entries)
select organization_id, user_id, sum(amount), coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0),
       coalesce(-sum(amount) filter (where amount < 0), 0), count(*)
  from points_entries group by 1, 2
on conflict (organization_id, user_id) do update set balance = excluded.balance, awarded = excluded.awarded, spent = excluded.spent, entries = excluded.entries;
