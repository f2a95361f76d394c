// Migration 0005 on data written before it: the file's own database is put back to 0004's shapes (text actions, the
// snowflake check), given rows as 0004 held them, and 0005 runs again. Text actions become JSON strings that read back
// as the same strings (a text that looks like JSON too), and stored channel ids keep to the new check.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startTestApp } from '@quad/core/testing';

const quad = await startTestApp(t, { plugins: ['./plugins/agents'], role: 'api' });
const org = await quad.createOrg({ prefix: 'acm', modules: { agents: true } });
const sql = (text: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(text, params as never[]);

t.test('0005 keeps the stored actions and channel ids', async (t) => {
  await sql("alter table agents_pending alter column action type text using action #>> '{}'");
  await sql('alter table agents_conversations drop constraint agents_conversations_channel_id_check');
  await sql("alter table agents_conversations add constraint agents_conversations_channel_id_check check (channel_id ~ '^[0-9]{1,20}$')");
  await sql(`insert into agents_pending (organization_id, uuid, member_id, action, payload_hash, expires_at)
    values (?, gen_random_uuid(), '1', 'store.checkout', 'h', now()), (?, gen_random_uuid(), '1', '{"do":"refund"}', 'h', now())`, [org.id, org.id]);
  await sql("insert into agents_conversations (organization_id, uuid, member_id, channel_id, visibility) values (?, gen_random_uuid(), '1', '900000000000000001', 'public')", [org.id]);

  await sql(readFileSync(new URL('../migrations/0005_agents_seed_shapes.sql', import.meta.url), 'utf8'));

  const actions = await sql('select action, json_typeof(action) as type from agents_pending order by id');
  t.same(actions.map((r) => [r.action, r.type]), [['store.checkout', 'string'], ['{"do":"refund"}', 'string']], 'the same strings');
  t.same((await sql('select channel_id from agents_conversations')).map((r) => r.channel_id), ['900000000000000001']);
});
