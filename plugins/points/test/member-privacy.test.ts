// What an org's officers see of a member is what that org recorded or what the member did in that org: the core
// `users` table is shared by every org, so a student id one org's check-in sheet recorded, or a Discord identity
// seen on another org's server, must not show in another org's answers, lists, leaderboard or search.
import t from 'tap';
import { awardForMessage } from '../index.js';
import { startPointsWorld } from './world.js';

t.test('an org sees only what it recorded about a member (student id, Discord identity)', async (t) => {
  const w = await startPointsWorld(t);
  const victimToken = await w.strangerOfficerToken(); // officer of org "other", the victim org
  const attacker = { token: w.officerToken }; // officer of org "acm"
  const email = 'shopper@victim.example';

  // The victim org records the member's student id through its check-in sheet.
  const sheet = await w.call({ method: 'POST', url: '/api/points/other/checkins', token: victimToken, body: { event: 'Intro', points: 5, csv: `email,student_id\n${email},S-VICTIM` } });
  t.equal(sheet.statusCode, 201, sheet.body);
  t.same(await w.sql('select student_id from users where email = ?', [email]), [{ student_id: null }], 'the shared users row holds no org\'s student id');

  // The attacker org names the same email.
  const award = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...attacker, body: { email, amount: 1 } });
  t.equal(award.statusCode, 201, award.body);
  const userId = award.json().member.user_id;
  t.same(award.json().member, { user_id: userId, email, student_id: null, chat_user_id: null, username: null }, 'the award answer');
  t.notOk(award.body.includes('S-VICTIM'));

  const views = async (token: string, org: string) => {
    const members = await w.call({ url: `/api/points/${org}/members`, token });
    const entries = await w.call({ url: `/api/points/${org}/members/${userId}/entries`, token });
    const board = await w.call({ url: `/api/points/${org}/leaderboard`, token });
    return {
      bodies: [members.body, entries.body, board.body],
      rows: [
        members.json().members.find((m: { user_id: number }) => m.user_id === userId),
        entries.json().member,
        board.json().leaderboard.find((m: { user_id: number }) => m.user_id === userId),
      ],
    };
  };
  const seen = await views(w.officerToken, 'acm');
  for (const [i, row] of seen.rows.entries()) {
    t.match(row, { user_id: userId, email, student_id: null, chat_user_id: null, username: null }, `attacker view ${i}`);
  }
  t.notOk(seen.bodies.some((b) => b.includes('S-VICTIM')), 'no student id of the other org anywhere');
  const search = await w.call({ url: '/api/points/acm/members?q=S-VICTIM', ...attacker });
  t.same(search.json().members, [], 'the other org\'s student id finds nobody');

  // The victim org still sees what it recorded.
  const own = await views(victimToken, 'other');
  for (const [i, row] of own.rows.entries()) t.match(row, { user_id: userId, email, student_id: 'S-VICTIM' }, `victim view ${i}`);
  t.same((await w.call({ url: '/api/points/other/members?q=S-VICTIM', token: victimToken })).json().members.map((m: { user_id: number }) => m.user_id), [userId]);
  const again = await w.call({ method: 'POST', url: '/api/points/other/awards', token: victimToken, body: { email, amount: 2 } });
  t.match(again.json().member, { student_id: 'S-VICTIM' });

  t.test('a Discord identity shows only where the org knows the member through Discord', async (t) => {
    // Say the core links this person's Discord account to the same users row; only the org that sees them on its
    // server learns it.
    const chatUserId = '1400000000000000777';
    await w.sql("update users set chat_user_id = ?, username = 'shopper' where id = ?", [chatUserId, userId]);
    for (const [token, org] of [[w.officerToken, 'acm'], [victimToken, 'other']]) {
      const { rows, bodies } = await views(token!, org!);
      for (const row of rows) t.match(row, { chat_user_id: null, username: null }, `${org}: not known through Discord`);
      t.notOk(bodies.some((b) => b.includes(chatUserId) || b.includes('"shopper"')));
      const pub = await w.call({ url: `/api/points/${org}/public/members` });
      t.notOk(pub.body.includes(chatUserId), `${org}: not in the public list either`);
    }
    // A message on the attacker org's server: that org now knows them through Discord.
    await w.sql('update organizations set points_per_message = 1, points_cooldown_seconds = 0 where id = ?', [w.org.id]);
    t.match(await awardForMessage(w.quad.serviceOrm, w.quad.services, { guildId: w.guildId, chatUserId, username: 'shopper', messageId: '1500000000000000777' }), { awarded: true, userId });
    for (const row of (await views(w.officerToken, 'acm')).rows) t.match(row, { chat_user_id: chatUserId, username: 'shopper', student_id: null });
    for (const row of (await views(victimToken, 'other')).rows) t.match(row, { chat_user_id: null, username: null, student_id: 'S-VICTIM' }, 'the other org still does not');
  });
});
