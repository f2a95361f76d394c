-- The seed's shapes (issue 42). A conversation's channel_id is any chat channel id, not only a server channel's
-- snowflake: DMs, threads and web chats have ids like "chan-1" or "web:5f2c…". The rule is the API's (schemas.ts,
-- ChannelId): 1 to 100 characters, no control character. Every stored id (digits) keeps to it.
alter table agents_conversations drop constraint agents_conversations_channel_id_check;
alter table agents_conversations add constraint agents_conversations_channel_id_check
  check (length(channel_id) between 1 and 100 and channel_id !~ '[\u0001-\u001f\u007f-\u009f]');

-- A pending action is any JSON value, returned on the claim as given. `json` keeps the text as it was written (jsonb
-- would reorder an object's keys); a stored text action becomes the JSON string of that text, so it comes back as the
-- same string. The API bounds it to 16 KB of JSON text.
alter table agents_pending alter column action type json using to_json(action);
