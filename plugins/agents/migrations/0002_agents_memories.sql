-- Memories an agent keeps about a member (spec "Agent records": kind, content, sensitivity, confidence, source_seq,
-- expiry). A sensitive memory's text is never in `content`: `sealed` holds it encrypted with SECRETS_KEY (the core's
-- secrets.seal, bound to the org and member), and the checks below keep the two apart.
create table agents_memories (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  member_id text not null check (member_id ~ '^[0-9]{1,20}$'),
  kind text not null check (kind in ('episodic', 'semantic', 'profile', 'task')),
  sensitivity text not null default 'normal' check (sensitivity in ('normal', 'sensitive')),
  content text,
  sealed text,
  confidence real not null check (confidence between 0 and 1),
  source_seq integer check (source_seq >= 0),
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  check ((sensitivity = 'normal' and content is not null and sealed is null)
      or (sensitivity = 'sensitive' and sealed is not null and content is null))
);
-- Reads: a member's memories, highest confidence first.
create index agents_memories_member on agents_memories (organization_id, member_id, confidence desc, id desc);
-- agents.prune: expired memories.
create index agents_memories_expiry on agents_memories (expires_at) where expires_at is not null;
