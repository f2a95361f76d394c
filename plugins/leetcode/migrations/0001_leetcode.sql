-- The LeetCode module: per-org settings, members' linked LeetCode usernames, the daily problem as posted to each
-- org's channel, and who solved it. organization_id on every table; every query names it.

-- One row per org that saved its settings; an org without a row has the defaults (settings.ts ORG_DEFAULTS).
create table leetcode_settings (
  organization_id integer primary key references organizations (id) on delete cascade,
  -- the Discord channel the daily problem is posted to; null: nothing is posted
  channel_id text check (channel_id ~ '^[0-9]{17,20}$'),
  post_hour_utc integer not null default 14 check (post_hour_utc between 0 and 23),
  points_per_solve integer not null default 10 check (points_per_solve between 0 and 1000),
  enabled boolean not null default true,
  updated_at timestamptz not null default now()
);
-- The daily job's scan: orgs that post (module switch checked in the same statement).
create index leetcode_settings_posting on leetcode_settings (post_hour_utc) where enabled and channel_id is not null;

-- A member's LeetCode username in an org: one per member, and one member per username (case-insensitive).
create table leetcode_links (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  chat_user_id text not null check (chat_user_id ~ '^[0-9]{1,20}$'),
  -- as LeetCode spells it (matchedUser.username)
  username text not null check (length(username) between 1 and 64),
  -- the member's Discord name when linked (shown in lists; Discord is not asked again to list links)
  display_name text,
  -- member:<chat id> (the member's own link) or officer:<chat id> / machine:<token id>
  linked_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- when leetcode.check_solves last took this link (claimed before the LeetCode call, so workers split the links)
  checked_at timestamptz
);
create unique index leetcode_links_member on leetcode_links (organization_id, chat_user_id);
create unique index leetcode_links_username on leetcode_links (organization_id, lower(username));
-- The solve checker's claim: links checked longest ago first.
create index leetcode_links_due on leetcode_links (checked_at nulls first, id);

-- The daily problem of one UTC day in one org: the unique row is the claim that makes a retried or concurrent run
-- post once. status: posting (claimed; a claim older than 10 minutes is a crashed run and is taken again),
-- posted (message_id set), failed (error set; the next run tries again).
create table leetcode_posts (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  date date not null,
  question_id text not null,
  title text not null,
  slug text not null,
  difficulty text not null,
  link text not null,
  tags jsonb not null default '[]',
  status text not null check (status in ('posting', 'posted', 'failed')),
  channel_id text not null,
  message_id text,
  error text,
  claimed_at timestamptz not null default now(),
  posted_at timestamptz,
  -- solves recorded for this day (maintained, so views never count the solves table)
  solves integer not null default 0
);
create unique index leetcode_posts_day on leetcode_posts (organization_id, date);
-- The solve checker: orgs with a post in the last two days.
create index leetcode_posts_recent on leetcode_posts (date, organization_id) where status = 'posted';

-- A member solved the day's problem (accepted submission that UTC day): once per org, day and member.
create table leetcode_solves (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  date date not null,
  chat_user_id text not null,
  username text not null,
  slug text not null,
  solved_at timestamptz not null,
  -- points awarded through the points module (0 when points was off or not loaded)
  points integer not null default 0,
  recorded_at timestamptz not null default now()
);
create unique index leetcode_solves_member on leetcode_solves (organization_id, date, chat_user_id);
-- GET /solves?date=: a day's solvers in solve order.
create index leetcode_solves_day on leetcode_solves (organization_id, date, solved_at, id);
