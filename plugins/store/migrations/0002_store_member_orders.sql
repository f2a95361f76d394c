-- Orders counted per (org, member, status), with the points they total, maintained by statement triggers in the
-- same transaction as every write to orders: the officers' order list reads its total and the dashboard its order
-- counts from here, summing a row per member and status instead of counting every order the org ever had. Rows
-- are per member so that concurrent checkouts of different members never wait on one counter row (a member's
-- orders are already serialized by the points ledger's member lock).
create table store_member_orders (
  organization_id integer not null references organizations (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  status text not null,
  orders integer not null default 0,
  points bigint not null default 0,
  primary key (organization_id, user_id, status)
);

-- One statement trigger for every write to orders: rows removed (delete, and the old side of an update) are taken
-- off their counter rows, which exist (or went with their org or member, on cascade); rows added (insert, and the
-- new side of an update) are upserted. An update that moves no counted field (a message, a timestamp) does nothing.
-- (PL/pgSQL plans each statement when it first runs, so a branch naming a transition table the firing statement
-- lacks is never planned.)
create function store_member_orders_apply() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' then
    if not exists (select 1 from old_rows o join new_rows n on n.id = o.id
        where (o.organization_id, o.user_id, o.status, o.total) is distinct from (n.organization_id, n.user_id, n.status, n.total)) then
      return null;
    end if;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    update store_member_orders c set orders = c.orders - d.orders, points = c.points - d.points
      from (select organization_id, user_id, status, count(*) as orders, sum(total) as points from old_rows group by 1, 2, 3 order by 1, 2, 3) d
     where c.organization_id = d.organization_id and c.user_id = d.user_id and c.status = d.status;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into store_member_orders (organization_id, user_id, status, orders, points)
    select organization_id, user_id, status, count(*), sum(total) from new_rows group by 1, 2, 3 order by 1, 2, 3
    on conflict (organization_id, user_id, status) do update
      set orders = store_member_orders.orders + excluded.orders, points = store_member_orders.points + excluded.points;
  end if;
  return null;
end $$;

create trigger store_member_orders_on_insert after insert on orders
  referencing new table as new_rows for each statement execute function store_member_orders_apply();
create trigger store_member_orders_on_delete after delete on orders
  referencing old table as old_rows for each statement execute function store_member_orders_apply();
create trigger store_member_orders_on_update after update on orders
  referencing old table as old_rows new table as new_rows for each statement execute function store_member_orders_apply();

-- Backfill: every member's orders so far.
insert into store_member_orders (organization_id, user_id, status, orders, points)
select organization_id, user_id, status, count(*), sum(total) from orders group by 1, 2, 3
on conflict (organization_id, user_id, status) do update set orders = excluded.orders, points = excluded.points;
