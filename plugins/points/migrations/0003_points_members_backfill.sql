-- Moves what orgs knew of their members out of the shared `users` table into points_members (0002).
-- Every org with ledger rows (or, when the store is installed, orders) of a user gets a row. Until now a users row
-- was made either from an email or from a Discord id, never both, so the identifier it holds is the one the org
-- knew them by. Only check-in sheets ever wrote users.student_id, so it goes to the orgs with check-in rows of that
-- user; then it is cleared: the shared table keeps no org's student id (the column is left unused).
insert into points_members (organization_id, user_id, student_id, known_by_email, known_by_discord, first_seen_at)
select e.organization_id, e.user_id,
       case when bool_or(e.source = 'checkin') and length(u.student_id) between 1 and 64 then u.student_id end,
       u.email is not null, u.chat_user_id is not null, min(e.created_at)
  from points_entries e join users u on u.id = e.user_id
 group by e.organization_id, e.user_id, u.id
on conflict (organization_id, user_id) do nothing;

do $$
begin
  if to_regclass('orders') is not null then
    insert into points_members (organization_id, user_id, known_by_email, known_by_discord, first_seen_at)
    select o.organization_id, o.user_id, u.email is not null, u.chat_user_id is not null, min(o.created_at)
      from orders o join users u on u.id = o.user_id
     group by o.organization_id, o.user_id, u.id
    on conflict (organization_id, user_id) do nothing;
  end if;
end $$;

update users set student_id = null where student_id is not null;
