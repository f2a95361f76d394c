-- What each org knows of a member. The core `users` table is shared by every org, so nothing one org records
-- about a person may live there: an org's student id for them, and whether the org knows them by email or through
-- Discord, live here, one row per org and member. Member views show `users.email` only when known_by_email and
-- `users.chat_user_id`/`username` only when known_by_discord.
create table points_members (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  -- the student id this org recorded (check-in sheet), null when it recorded none
  student_id text check (student_id is null or length(student_id) between 1 and 64),
  -- the org named or saw the member by their email (award, check-in row, storefront order)
  known_by_email boolean not null default false,
  -- the org named or saw the member by their Discord id (award, check-in row, message or join on its server,
  -- order with a Discord session)
  known_by_discord boolean not null default false,
  first_seen_at timestamptz not null default now(),
  unique (organization_id, user_id)
);
create index points_members_user on points_members (user_id);
