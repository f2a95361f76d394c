-- A member's balance in an org, maintained: the sum of their points_entries rows, kept equal to it by the
-- statement triggers below in the same transaction as every ledger write (insert, delete, update), so reading or
-- locking a balance costs one row however long the member's history is. lockMember locks this row (creating it
-- at 0 for a member with no rows yet) and reads the balance under the lock.
create table points_balances (
  organization_id integer not null references organizations (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  balance bigint not null default 0,
  primary key (organization_id, user_id)
);

-- Rows added: upsert each member's sum (members in key order, so concurrent bulk writes lock them in one order).
create function points_balances_add() returns trigger language plpgsql as $$
begin
  insert into points_balances (organization_id, user_id, balance)
  select organization_id, user_id, sum(amount) from new_rows group by 1, 2 order by 1, 2
  on conflict (organization_id, user_id) do update set balance = points_balances.balance + excluded.balance;
  return null;
end $$;

-- Rows removed: the member's balance row exists already (or went with its org or user, on cascade): update only.
create function points_balances_remove() returns trigger language plpgsql as $$
begin
  update points_balances b set balance = b.balance - d.amount
    from (select organization_id, user_id, sum(amount) as amount from old_rows group by 1, 2 order by 1, 2) d
   where b.organization_id = d.organization_id and b.user_id = d.user_id;
  return null;
end $$;

-- Rows changed: take the old amounts off, then add the new ones.
create function points_balances_change() returns trigger language plpgsql as $$
begin
  update points_balances b set balance = b.balance - d.amount
    from (select organization_id, user_id, sum(amount) as amount from old_rows group by 1, 2 order by 1, 2) d
   where b.organization_id = d.organization_id and b.user_id = d.user_id;
  insert into points_balances (organization_id, user_id, balance)
  select organization_id, user_id, sum(amount) from new_rows group by 1, 2 order by 1, 2
  on conflict (organization_id, user_id) do update set balance = points_balances.balance + excluded.balance;
  return null;
end $$;

create trigger points_balances_on_insert after insert on points_entries
  referencing new table as new_rows for each statement execute function points_balances_add();
create trigger points_balances_on_delete after delete on points_entries
  referencing old table as old_rows for each statement execute function points_balances_remove();
create trigger points_balances_on_update after update on points_entries
  referencing old table as old_rows new table as new_rows for each statement execute function points_balances_change();

-- Backfill: every member's sum so far.
insert into points_balances (organization_id, user_id, balance)
select organization_id, user_id, sum(amount) from points_entries group by 1, 2
on conflict (organization_id, user_id) do update set balance = excluded.balance;
