// A fresh install bootstrapped from the shell, with no Discord sign-in: while `quad run` serves, an operator adds an
// org, switches a module on and makes a machine token, and an agent lists the tools with that token over MCP.
import { createHash } from 'node:crypto';
import pg from 'pg';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { allCommands, buildProgram, commandPath } from '../../core/src/cli/program.js';
import { defaultDatabase, freePort, quad, runApp } from './processes.js';

/** Every `quad …` a hint names must be a command that exists: its words lead to a command with no subcommands. */
function assertHintsExist(t: Test, stderr: string) {
  const { program } = buildProgram();
  const leaves = new Set(allCommands(program).filter((c) => !c.commands.length).map(commandPath));
  for (const [, words] of stderr.matchAll(/\bquad((?: [a-z][a-z-]*)+)/g)) {
    const typed = `quad${words}`.split(' ');
    const known = typed.map((_, i) => typed.slice(0, i + 1).join(' ')).filter((p) => leaves.has(p));
    t.ok(known.length, `the hint "quad${words}" names a command that exists`);
  }
}

t.test('org add → org modules → token create → an MCP client lists the tools', async (t) => {
  const db = await defaultDatabase(t);
  const toolPort = await freePort();
  const env = { DATABASE_URL: db.url, TOOL_PORT: String(toolPort) };
  await runApp(t, env);
  let hints = '';
  const cli = async (...args: string[]) => {
    const result = await quad(args, { env });
    hints += result.stderr;
    t.notMatch(result.stderr, /\n\s+at /, `no stack: quad ${args.join(' ')}`);
    return result;
  };

  const added = await cli('org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '111111111111111111');
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, /^added org acm \(id \d+\) for server 111111111111111111 \(no officer role yet\)\nmodules on: none\n$/);

  await t.test('a module whose need is off is refused as the route refuses it, with the command that works', async (t) => {
    const refused = await cli('org', 'modules', 'acm', 'store=on');
    t.equal(refused.code, 1);
    t.equal(refused.stderr, 'error: Store needs Points first\nhint: quad org modules acm points=on store=on\n');
    const unknown = await cli('org', 'modules', 'acm', 'nope=on');
    t.equal(unknown.code, 1);
    t.equal(unknown.stderr, 'error: Unknown module "nope"\n');
  });

  const switched = await cli('org', 'modules', 'acm', 'points=on');
  t.equal(switched.code, 0, switched.stderr);
  t.match(switched.stderr, /^switched points on$/m);
  t.match(switched.stdout, /^points\ton\tneeds nothing$/m);
  t.match(switched.stdout, /^store\toff\tneeds points \(on\)$/m);
  const listed = await cli('org', 'modules', 'acm');
  t.equal(listed.stdout, switched.stdout, 'without switches it lists the same');

  await t.test('points on cannot be switched off under the store; both together can', async (t) => {
    t.equal((await cli('org', 'modules', 'acm', 'store=on')).code, 0);
    const needed = await cli('org', 'modules', 'acm', 'points=off');
    t.equal(needed.code, 1);
    t.equal(needed.stderr, 'error: Store needs Points; switch it off first\nhint: quad org modules acm store=off points=off\n');
    t.equal((await cli('org', 'modules', 'acm', 'store=off')).code, 0);
  });

  const created = await cli('token', 'create', '--org', 'acm', '--name', 'agent one', '--kind', 'agent', '--scopes', 'org:read');
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^plat_[A-Za-z0-9_-]+\n$/, 'stdout holds the token and nothing else');
  const token = created.stdout.trim();
  t.notOk(created.stderr.includes(token), 'the token is printed once');
  t.match(created.stderr, /^token (\d+) "agent one" of org acm \(agent; org:read; never expires\)/);
  const tokenId = /^token (\d+)/.exec(created.stderr)![1];

  await t.test('an MCP client lists and calls the tools with that token on the running app', async (t) => {
    const client = new Client({ name: 'cli-bootstrap-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${toolPort}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }));
    t.teardown(() => client.close());
    const { tools } = await client.listTools();
    t.same(tools.map((tool) => tool.name).sort(), ['modules.list', 'org.info', 'org.limits']);
    const modules = await client.callTool({ name: 'modules.list', arguments: {} });
    const points = (modules.structuredContent as { modules: { name: string; enabled: boolean }[] }).modules.find((m) => m.name === 'points');
    t.equal(points?.enabled, true, 'the module switched on from the shell is on for the app');
  });

  await t.test('token list shows the token without its secret or hash', async (t) => {
    const list = await cli('token', 'list', '--org', 'acm');
    t.equal(list.code, 0);
    t.match(list.stdout, new RegExp(`^${tokenId}\tagent one\tagent\torg:read\t${token.slice(0, 12)}…\tactive\tcreated \\S+ by cli\texpires never\tlast used `, 'm'));
    t.notOk(list.stdout.includes(token), 'never the token');
    t.notOk(list.stdout.includes(createHash('sha256').update(token).digest('hex')), 'never its hash');
  });

  await t.test('the route\'s checks and messages, flag by flag', async (t) => {
    const base = ['token', 'create', '--org', 'acm', '--kind', 'app'];
    const scope = await cli(...base, '--name', 'x', '--scopes', 'org:read,nope');
    t.equal(scope.code, 1);
    t.match(scope.stderr, /^error: Unknown scope "nope"\nscopes: org:read, tokens:manage\n$/);
    t.equal(scope.stdout, '', 'nothing on stdout when no token was made');
    const days = await cli(...base, '--name', 'x', '--scopes', 'org:read', '--expires-days', '0');
    t.equal(days.stderr, 'error: --expires-days: must be >= 1\n');
    const name = await cli(...base, '--name', 'x'.repeat(101), '--scopes', 'org:read');
    t.equal(name.stderr, 'error: --name: must NOT have more than 100 characters\n');
    const org = await cli(...base, '--org', 'nope', '--name', 'x', '--scopes', 'org:read');
    t.equal(org.stderr, 'error: No org "nope" (quad org list shows them)\n');
  });

  await t.test('token revoke', async (t) => {
    const revoked = await cli('token', 'revoke', '--org', 'acm', tokenId);
    t.equal(revoked.code, 0);
    t.equal(revoked.stdout, `revoked token ${tokenId} of org acm\n`);
    t.match((await cli('token', 'list', '--org', 'acm')).stdout, new RegExp(`^${tokenId}\tagent one\t.*\trevoked\t`, 'm'));
    const unknown = await cli('token', 'revoke', '--org', 'acm', '999');
    t.equal(unknown.code, 1);
    t.equal(unknown.stderr, 'error: No such token\nhint: quad token list --org acm shows the org\'s tokens\n');
  });

  await t.test('every change is audited as cli', async (t) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    t.teardown(() => client.end());
    const { rows } = await client.query("select action, details from audit_log where actor = 'cli' order by id");
    t.same(rows.map((r) => r.action), ['org.create', 'org.modules', 'org.modules', 'org.modules', 'tokens.create', 'tokens.revoke']);
    t.same(rows[1].details, { changed: { points: true } });
  });

  await t.test('every hint names a command that exists', async (t) => {
    t.match(hints, /quad org modules acm points=on store=on/, 'hints were collected');
    assertHintsExist(t, hints);
  });
});
