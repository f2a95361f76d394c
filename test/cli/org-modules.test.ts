// `quad org modules`: the officer route's rules and messages (needs first; not off under a module that needs it),
// each refusal with the command that gets past it.
import t from 'tap';
import { assertHintsExist, defaultDatabase, quad } from './processes.js';

t.test('org modules', async (t) => {
  const db = await defaultDatabase(t);
  const env = { DATABASE_URL: db.url };
  const cli = (...args: string[]) => quad(args, { env });
  t.equal((await cli('org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '1001')).code, 0);

  const [listed, unknown, needs, org] = await Promise.all([
    cli('org', 'modules', 'acm'), cli('org', 'modules', 'acm', 'nope=on'), cli('org', 'modules', 'acm', 'store=on'), cli('org', 'modules', 'nope'),
  ]);
  t.equal(listed.stdout, 'points\toff\tneeds nothing\nstore\toff\tneeds points (off)\nevent_webhook\toff\tneeds nothing\nknowledge\toff\tneeds nothing\nagents\toff\tneeds nothing\npodhost\toff\tneeds nothing\nfeeds\toff\tneeds nothing\nsubmodules\toff\tneeds knowledge (off, optional)\n'
    + 'hostprov\toff\tneeds hostprov (not connected)\nuptime\toff\tneeds nothing\ncalendar\toff\tneeds nothing\nleetcode\toff\tneeds points (off, optional)\n');
  t.equal(listed.stderr, 'switch with: quad org modules acm <module>=on|off …\n');
  t.same([unknown.code, unknown.stderr], [1, 'error: Unknown module "nope"\n']);
  t.same([needs.code, needs.stderr], [1, 'error: Store needs Points first\nhint: quad org modules acm points=on store=on\n'], 'needs_missing, with the command');
  t.same([org.code, org.stderr], [1, 'error: No org "nope" (quad org list shows them)\n']);

  const both = await cli('org', 'modules', 'acm', 'points=on', 'store=on');
  t.same([both.code, both.stderr], [0, 'switched points on, store on\n'], 'a need switched on in the same command counts');
  const neededBy = await cli('org', 'modules', 'acm', 'points=off');
  t.same([neededBy.code, neededBy.stderr], [1, 'error: Store needs Points; switch it off first\nhint: quad org modules acm store=off points=off\n']);
  const off = await cli('org', 'modules', 'acm', 'store=off', 'points=off');
  t.same([off.code, off.stderr], [0, 'switched store off, points off\n']);
  const again = await cli('org', 'modules', 'acm', 'points=off');
  t.same([again.code, again.stderr], [0, 'nothing to change\n']);
  assertHintsExist(t, [listed, needs, org, neededBy].map((r) => r.stderr).join(''));
});
