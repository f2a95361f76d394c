// A fresh install bootstrapped from the shell, with no Discord sign-in: while `quad run` serves, an operator adds an
// org, switches a module on and makes a machine token, and an agent lists the tools with that token over MCP.
import { createHash } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertHintsExist, defaultDatabase, freePort, quad, runApp } from './processes.js';

t.test('org add → org modules acm points=on → token create → an MCP client lists the tools', async (t) => {
  const db = await defaultDatabase(t);
  const toolPort = await freePort();
  const env = { DATABASE_URL: db.url, TOOL_PORT: String(toolPort) };
  await runApp(t, env);
  let hints = '';
  const cli = async (...args: string[]) => {
    const result = await quad(args, { env });
    hints += result.stderr;
    return result;
  };

  const added = await cli('org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '111111111111111111');
  t.equal(added.code, 0, added.stderr);
  t.equal(added.stdout, 'added org acm (id 1) for server 111111111111111111 (no officer role yet)\nmodules on: none\n');

  const switched = await cli('org', 'modules', 'acm', 'points=on');
  t.equal(switched.code, 0, switched.stderr);
  t.equal(switched.stderr, 'switched points on\n');
  t.equal(switched.stdout, 'points\ton\tneeds nothing\nstore\toff\tneeds points (on)\nevent_webhook\toff\tneeds nothing\nknowledge\toff\tneeds nothing\nagents\toff\tneeds nothing\npodhost\toff\tneeds nothing\nfeeds\toff\tneeds nothing\nsubmodules\toff\tneeds knowledge (off, optional)\n'
    + 'hostprov\toff\tneeds hostprov (not connected)\nuptime\toff\tneeds nothing\ncalendar\toff\tneeds nothing\nleetcode\toff\tneeds points (on, optional)\n');

  const created = await cli('token', 'create', '--org', 'acm', '--name', 'agent one', '--kind', 'agent', '--scopes', 'org:read');
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^plat_[A-Za-z0-9_-]+\n$/, 'stdout holds the token and nothing else');
  const token = created.stdout.trim();
  t.notOk(created.stderr.includes(token), 'the token is printed once');
  t.match(created.stderr, /^token 1 "agent one" of org acm \(agent; org:read; never expires\): shown only now/);

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
    t.match(list.stdout, new RegExp(`^1\tagent one\tagent\torg:read\t${token.slice(0, 12)}…\tactive\tcreated \\S+ by cli\texpires never\tlast used \\S+\n$`));
    t.notOk(list.stdout.includes(token), 'never the token');
    t.notOk(list.stdout.includes(createHash('sha256').update(token).digest('hex')), 'never its hash');
  });

  await t.test('every change is audited as cli', async (t) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    t.teardown(() => client.end());
    const { rows } = await client.query("select action, details from audit_log where actor = 'cli' order by id");
    t.same(rows.map((r) => r.action), ['org.create', 'org.modules', 'tokens.create']);
    t.same(rows[1].details, { changed: { points: true } });
  });

  await t.test('every hint names a command that exists', async (t) => {
    t.match(hints, /next: quad org modules acm/, 'hints were printed');
    assertHintsExist(t, hints);
  });
});
