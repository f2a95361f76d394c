// The maintained balance (points_balances, migration 0004) always equals the sum of the member's ledger rows (and its
// awarded, spent and row counts, which the dashboard sums, equal theirs),
// whatever writes the rows: awards and deductions, check-in sheets, deleting an event's rows, raw inserts, updates
// and deletes, and a deleted member or org; and the migration's backfill computes it from existing rows.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { startPointsWorld, type PointsWorld } from './world.js';

/** Every (org, member) whose maintained balance differs from the sum of their rows (either side missing = 0). */
const drift = (w: PointsWorld) => w.sql(
  `select coalesce(b.organization_id, s.organization_id) as org, coalesce(b.user_id, s.user_id) as user,
          b.balance::int, b.awarded::int, b.spent::int, b.entries, s.balance::int as sum, s.awarded::int as sum_awarded,
          s.spent::int as sum_spent, s.entries as rows
     from points_balances b
     full join (select organization_id, user_id, sum(amount) as balance,
                       coalesce(sum(amount) filter (where amount > 0 and source <> 'refund'), 0) as awarded,
                       coalesce(-sum(amount) filter (where amount < 0), 0) as spent, count(*)::int as entries
                  from points_entries group by 1, 2) s
       on s.organization_id = b.organization_id and s.user_id = b.user_id
    where (coalesce(b.balance, 0), coalesce(b.awarded, 0), coalesce(b.spent, 0), coalesce(b.entries, 0))
          is distinct from (coalesce(s.balance, 0), coalesce(s.awarded, 0), coalesce(s.spent, 0), coalesce(s.entries, 0))`);

t.test('the maintained balance equals the sum of the rows after every kind of ledger write', async (t) => {
  const w = await startPointsWorld(t);
  const officer = { token: w.officerToken };
  const other = await w.quad.createOrg({ prefix: 'other', modules: { points: true } });
  const award = (body: object) => w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body });

  t.equal((await award({ email: 'ada@example.org', amount: 25, event: 'Booth' })).statusCode, 201);
  t.equal((await award({ email: 'ada@example.org', amount: -5 })).statusCode, 201);
  const refused = await award({ email: 'ada@example.org', amount: -100 });
  t.equal(refused.json().balance, 20, 'a deduction below zero is refused with the balance read under the lock');
  t.same(await drift(w), [], 'after awards and deductions');

  const sheet = await w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Hack Night', points: 10, csv: 'email\nada@example.org\nbob@example.org\ncy@example.org' } });
  t.equal(sheet.statusCode, 201, sheet.body);
  t.same(await drift(w), [], 'after a check-in sheet (one statement, many members)');

  await Promise.all(Array.from({ length: 20 }, (_, i) => award({ email: `m${i % 4}@example.org`, amount: i + 1 })));
  t.same(await drift(w), [], 'after concurrent awards');

  t.equal((await w.call({ method: 'DELETE', url: '/api/points/acm/events/Hack%20Night', ...officer })).statusCode, 200);
  t.same(await drift(w), [], 'after deleting an event\'s rows');

  const ada = await w.userId({ email: 'ada@example.org' });
  await w.grant(ada, 7, other.id);
  await w.sql(`update points_entries set amount = amount * 2 where organization_id = ? and amount > 0`, [w.org.id]);
  await w.sql(`update points_entries set source = 'refund' where organization_id = ? and amount = 4`, [w.org.id]);
  await w.sql(`update points_entries set user_id = ? where organization_id = ? and user_id = (select id from users where email = 'bob@example.org')`, [ada, w.org.id]);
  await w.sql(`delete from points_entries where organization_id = ? and amount = 2`, [w.org.id]);
  t.same(await drift(w), [], 'after raw updates (amounts and owners) and deletes');
  t.equal(await w.balance(ada, other.id), 7, 'balances are per org');
  const [row] = await w.sql<{ balance: string }>('select balance from points_balances where organization_id = ? and user_id = ?', [other.id, ada]);
  t.equal(Number(row!.balance), 7);

  await w.sql(`delete from users where email = 'm0@example.org'`);
  await w.sql('delete from organizations where id = ?', [other.id]);
  t.same(await drift(w), [], 'after a member and an org are deleted (cascades)');
});

t.test('0004 backfills every member\'s balance from their rows', async (t) => {
  const w = await startPointsWorld(t);
  const ada = await w.userId({ email: 'ada@example.org' });
  const bob = await w.userId({ email: 'bob@example.org' });
  await w.grant(ada, 10);
  await w.grant(ada, -3);
  await w.grant(bob, 4);
  await w.sql('delete from points_balances');
  const migration = await readFile(new URL('../migrations/0004_points_balances.sql', import.meta.url), 'utf8');
  await w.sql(migration.slice(migration.indexOf('-- Backfill')));
  t.same(await drift(w), []);
  t.same((await w.sql('select user_id, balance::int, awarded::int, spent::int, entries from points_balances order by user_id')).map((r) => [r.user_id, r.balance, r.awarded, r.spent, r.entries]),
    [[ada, 7, 10, 3, 2], [bob, 4, 4, 0, 1]]);
});
