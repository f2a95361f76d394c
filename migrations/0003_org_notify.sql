-- Every change to an org is announced, so each process's org cache drops it (core/src/orgs/org-cache.ts).
create function quad_notify_org_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('quad_org_changed', coalesce(new.id, old.id)::text);
  return null;
end $$;

create trigger organizations_changed after update or delete on organizations
  for each row execute function quad_notify_org_changed();
