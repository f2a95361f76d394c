// `quad token create|list|revoke`: the route's checks and messages, named by the flag the operator typed.
import t from 'tap';
import { assertHintsExist, defaultDatabase, quad } from './processes.js';

t.test('token commands refuse what the route refuses', async (t) => {
  const db = await defaultDatabase(t);
  const env = { DATABASE_URL: db.url };
  const cli = (...args: string[]) => quad(args, { env });
  t.equal((await cli('org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '1001')).code, 0);
  const create = ['token', 'create', '--org', 'acm', '--kind', 'app'];
  const [scope, days, name, org, none] = await Promise.all([
    cli(...create, '--name', 'x', '--scopes', 'org:read,nope'),
    cli(...create, '--name', 'x', '--scopes', 'org:read', '--expires-days', '0'),
    cli(...create, '--name', 'x'.repeat(101), '--scopes', 'org:read'),
    cli(...create, '--org', 'nope', '--name', 'x', '--scopes', 'org:read'),
    cli('token', 'list', '--org', 'acm'),
  ]);
  t.same([scope.code, scope.stdout, scope.stderr], [1, '', 'error: Unknown scope "nope"\nscopes: agents:read, agents:write, calendar:manage, calendar:read, feeds:manage, hostprov:manage, hostprov:read, knowledge:read, knowledge:write, leetcode:manage, leetcode:read, mcp:github, mcp:remote, org:read, podhost:manage, podhost:read, submodules:manage, submodules:read, tokens:manage, uptime:manage, uptime:read\n'], 'an unknown scope lists the known ones');
  t.same([days.code, days.stderr], [1, 'error: --expires-days: must be >= 1\n']);
  t.same([name.code, name.stderr], [1, 'error: --name: must NOT have more than 100 characters\n']);
  t.same([org.code, org.stderr], [1, 'error: No org "nope" (quad org list shows them)\n']);
  t.same([none.code, none.stdout, none.stderr], [0, '', 'no tokens yet: quad token create --org acm --name <name> --kind agent --scopes org:read\n']);

  const made = await cli('token', 'create', '--org', 'acm', '--name', 'ci', '--kind', 'app', '--scopes', 'org:read,tokens:manage', '--expires-days', '30');
  t.equal(made.code, 0, made.stderr);
  t.match(made.stderr, /^token 1 "ci" of org acm \(app; org:read, tokens:manage; expires \d{4}-\d\d-\d\dT/);
  const revoked = await cli('token', 'revoke', '--org', 'acm', '1');
  t.same([revoked.code, revoked.stdout], [0, 'revoked token 1 of org acm\n']);
  const [list, unknown] = await Promise.all([cli('token', 'list', '--org', 'acm'), cli('token', 'revoke', '--org', 'acm', '999')]);
  t.match(list.stdout, /^1\tci\tapp\torg:read,tokens:manage\tplat_\S+…\trevoked\tcreated \S+ by cli\texpires \d{4}-\S+\tlast used never\n$/);
  t.same([unknown.code, unknown.stderr], [1, 'error: No such token\nhint: quad token list --org acm shows the org\'s tokens\n']);
  assertHintsExist(t, [none, made, unknown].map((r) => r.stderr).join(''));
});
