-- A change to a machine token's credentials (revoked, expiry, scopes, limits, org) or its deletion is announced,
-- so each process's token cache drops it (core/src/auth/machine-tokens.ts). last_used_at writes are not.
create function quad_notify_machine_token_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('quad_machine_token_changed', coalesce(new.id, old.id)::text);
  return null;
end $$;

create trigger machine_tokens_changed
  after update of revoked_at, expires_at, scopes, limits, organization_id, token_hash, name, kind or delete on machine_tokens
  for each row execute function quad_notify_machine_token_changed();
