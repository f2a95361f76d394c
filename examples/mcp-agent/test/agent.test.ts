// The example agent, run as its own process against a real Quad over MCP.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { moduleCommand, startTestApp } from '@quad/core/testing';

// The repository root: the agent runs from there, as `npm start` would.
const ROOT = new URL('../../../', import.meta.url).pathname;

t.test('the example agent lists and calls tools', async (t) => {
  const quad = await startTestApp(t, { listen: true });
  const org = await quad.createOrg({ prefix: 'acm', name: 'ACM Chapter' });
  const { token } = await quad.issueToken(org.id, { name: 'agent', kind: 'agent', scopes: ['org:read'] });
  const url = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`;
  const run = (args: string[], env: Record<string, string>) => {
    const [file, ...rest] = moduleCommand('examples/mcp-agent/agent', ...args);
    return promisify(execFile)(file, rest, {
      cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, QUAD_MCP_URL: url, ...env },
    });
  };
  const { stdout } = await run([], { QUAD_TOKEN: token });
  t.match(stdout, /^3 tools:$/m);
  t.match(stdout, /^ {2}org\.info \(read-only\) — /m);
  t.match(stdout, /^org\.info -> \{"id":\d+,"prefix":"acm","name":"ACM Chapter"/m);
  const limits = await run(['org.limits'], { QUAD_TOKEN: token });
  t.match(limits.stdout, /org\.limits -> \{"limits":\[.*"key":"mcp\.calls_per_minute"/);
  const refused = await run([], { QUAD_TOKEN: 'plat_nope' }).then(() => null, (err: { code: number; stderr: string }) => err);
  t.equal(refused?.code, 3, 'a bad token: exit code 3');
  t.equal(refused?.stderr.trim().split('\n').length, 1, 'one line, no stack');
  t.match(refused?.stderr, /refused QUAD_TOKEN \(401\): it is unknown, revoked or expired/);
  const missing = await run([], {}).then(() => null, (err: { code: number; stderr: string }) => err);
  t.equal(missing?.code, 2);
});
