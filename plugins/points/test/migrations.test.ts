// The migration that moves what orgs knew of their members out of the shared `users` table (0003): each org with
// ledger rows of a person gets its points_members row, known by the identifier the users row holds; a student id
// goes only to the orgs with check-in rows of that person (check-in sheets were its only writer), and the shared
// column is cleared.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { startMemberWorld } from '@quad/core/testing';
import { startPointsWorld } from './world.js';

t.test('0003 backfills points_members and clears users.student_id', async (t) => {
  const w = await startPointsWorld(t);
  const other = await w.quad.createOrg({ prefix: 'other', modules: { points: true } });
  const [ada] = await w.sql<{ id: number }>("insert into users (email, student_id) values ('ada@example.org', 'S-ADA') returning id");
  const [bob] = await w.sql<{ id: number }>("insert into users (chat_user_id, username, student_id) values ('1400000000000000321', 'bob2', 'S-BOB') returning id");
  const [cy] = await w.sql<{ id: number }>("insert into users (email, student_id) values ('cy@example.org', 'S-CY') returning id");
  const entry = (org: number, user: number, source: string, at: string) => w.sql(
    `insert into points_entries (organization_id, user_id, amount, source, event_name, awarded_by, created_at)
     values (?, ?, 1, ?, case when ? = 'checkin' then 'Intro' end, 'system', ?)`, [org, user, source, source, at]);
  await entry(w.org.id, ada!.id, 'award', '2025-01-02T00:00:00Z');
  await entry(other.id, ada!.id, 'checkin', '2025-01-03T00:00:00Z');
  await entry(w.org.id, bob!.id, 'message', '2025-01-04T00:00:00Z');
  await entry(other.id, bob!.id, 'checkin', '2025-01-05T00:00:00Z');
  await entry(other.id, bob!.id, 'award', '2025-01-01T00:00:00Z');

  const sql = await readFile(new URL('../migrations/0003_points_members_backfill.sql', import.meta.url), 'utf8');
  await w.sql(sql);
  const rows = await w.sql(`select organization_id as org, user_id as user, student_id, known_by_email as email, known_by_discord as discord,
      first_seen_at from points_members order by organization_id, user_id`);
  t.same(rows.map((r) => ({ ...r, first_seen_at: new Date(r.first_seen_at).toISOString() })), [
    { org: w.org.id, user: ada!.id, student_id: null, email: true, discord: false, first_seen_at: '2025-01-02T00:00:00.000Z' },
    { org: w.org.id, user: bob!.id, student_id: null, email: false, discord: true, first_seen_at: '2025-01-04T00:00:00.000Z' },
    { org: other.id, user: ada!.id, student_id: 'S-ADA', email: true, discord: false, first_seen_at: '2025-01-03T00:00:00.000Z' },
    { org: other.id, user: bob!.id, student_id: 'S-BOB', email: false, discord: true, first_seen_at: '2025-01-01T00:00:00.000Z' },
  ], 'a row per org with ledger rows; the student id only where the person checked in');
  t.same(await w.sql('select count(*)::int as n from users where student_id is not null'), [{ n: 0 }], 'the shared column is cleared');
  t.notOk(rows.some((r) => r.user === cy!.id), 'a person with no rows anywhere belongs to no org');

  await w.sql(sql);
  t.equal((await w.sql('select 1 from points_members')).length, 4, 'running it again changes nothing');
});

t.test('0003 with the store installed: buyers with orders but no ledger rows (free orders) get their row too', async (t) => {
  const w = await startMemberWorld(t, { plugins: ['./plugins/points', './plugins/store'], orgModules: { points: true, store: true }, config: { POINTS_GATEWAY: false } });
  const [buyer] = await w.sql<{ id: number }>("insert into users (email) values ('free@example.org') returning id");
  await w.sql(`insert into orders (organization_id, user_id, total, channel, created_at) values (?, ?, 0, 'storefront', '2025-02-01T00:00:00Z')`, [w.org.id, buyer!.id]);
  await w.sql(await readFile(new URL('../migrations/0003_points_members_backfill.sql', import.meta.url), 'utf8'));
  t.same(await w.sql('select organization_id as org, student_id, known_by_email as email, known_by_discord as discord from points_members where user_id = ?', [buyer!.id]),
    [{ org: w.org.id, student_id: null, email: true, discord: false }]);
});
