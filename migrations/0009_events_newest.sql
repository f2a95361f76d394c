-- An org's events newest first: what emit's prune reads (the newest 200 kept, older than 30 days dropped) walks
-- this index from either end instead of sorting all the org's notifications on every emit.
create index notifications_org_events_newest on notifications (organization_id, created_at desc, id desc) where category = 'event';
