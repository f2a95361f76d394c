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

create function store_member_orders_add() returns trigger language plpgsql as $$
begin
  insert into store_member_orders (organization_id, user_id, status, orders, points)
  select organization_id, user_id, status, count(*), sum(total) from new_rows group by 1, 2, 3 order by 1, 2, 3
  on conflict (organization_id, user_id, status) do update
    set orders = store_member_orders.orders + excluded.orders, points = store_member_orders.points + excluded.points;
  return null;
end $$;

-- Rows removed: their counter rows exist (or went with their org or member, on cascade): update only.
create function store_member_orders_remove() returns trigger language plpgsql as $$
begin
  update store_member_orders c set orders = c.orders - d.orders, points = c.points - d.points
    from (select organization_id, user_id, status, count(*) as orders, sum(total) as points from old_rows group by 1, 2, 3 order by 1, 2, 3) d
   where c.organization_id = d.organization_id and c.user_id = d.user_id and c.status = d.status;
  return null;
end $$;

create function store_member_orders_change() returns trigger language plpgsql as $$
begin
  if not exists (select 1 from old_rows o join new_rows n on n.id = o.id
                  where (o.organization_id, o.user_id, o.status, o.total) is distinct from (n.organization_id, n.user_id, n.status, n.total)) then
    return null;
  end if;
  update store_member_orders c set orders = c.orders - d.orders, points = c.points - d.points
    from (select organization_id, user_id, status, count(*) as orders, sum(total) as points from old_rows group by 1, 2, 3 order by 1, 2, 3) d
   where c.organization_id = d.organization_id and c.user_id = d.user_id and c.status = d.status;
  insert into store_member_orders (organization_id, user_id, status, orders, points)
  select organization_id, user_id, status, count(*), sum(total) from new_rows group by 1, 2, 3 order by 1, 2, 3
  on conflict (organization_id, user_id, status) do update
    set orders = store_member_orders.orders + excluded.orders, points = store_member_orders.points + excluded.points;
  return null;
end $$;

create trigger store_member_orders_on_insert after insert on orders
  referencing new table as new_rows for each statement execute function store_member_orders_add();
create trigger store_member_orders_on_delete after delete on orders
  referencing old table as old_rows for each statement execute function store_member_orders_remove();
create trigger store_member_orders_on_update after update on orders
  referencing old table as old_rows new table as new_rows for each statement execute function store_member_orders_change();

-- Backfill: every member's orders so far.
insert into store_member_orders (organization_id, user_id, status, orders, points)
select organization_id, user_id, status, count(*), sum(total) from orders group by 1, 2, 3
on conflict (organization_id, user_id, status) do update set orders = excluded.orders, points = excluded.points;
