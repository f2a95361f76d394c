-- Row-level security compares each org row's organization_id with the org its transaction is bound to (README "Org
-- isolation"), so messages and summaries carry their conversation's org too. New rows take the bound org.
alter table agents_messages add column organization_id integer references organizations (id) on delete cascade;
update agents_messages m set organization_id = c.organization_id from agents_conversations c where c.id = m.conversation_id;
alter table agents_messages
  alter column organization_id set not null,
  alter column organization_id set default nullif(current_setting('quad.org_id', true), '')::integer;

alter table agents_summaries add column organization_id integer references organizations (id) on delete cascade;
update agents_summaries s set organization_id = c.organization_id from agents_conversations c where c.id = s.conversation_id;
alter table agents_summaries
  alter column organization_id set not null,
  alter column organization_id set default nullif(current_setting('quad.org_id', true), '')::integer;
