-- When the member last joined the org's Discord server, as GUILD_MEMBER_ADD's `joined_at` gave it. Discord may send
-- that event again for a member already in the server (same `joined_at`), so a join raises the event
-- points.member_joined only when this value changes (recordMemberJoined). Null: no join seen (members known from
-- messages, awards, check-ins or orders).
alter table points_members add column discord_joined_at timestamptz;
