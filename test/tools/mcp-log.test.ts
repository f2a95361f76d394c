// The MCP server logs like the main port: one line per response (the transport answers on the raw response), with
// the token's org and the request id, and no credential.
import t from 'tap';
import { captureLogs, startTestApp } from '@quad/core/testing';
import { issueToken } from '../../core/src/auth/token-admin.js';
import { toolbox } from '../fixtures/toolbox-module.js';

t.test('one log line per MCP response', async (t) => {
  const logs = captureLogs();
  const quad = await startTestApp(t, { plugins: [toolbox], listen: true, logger: logs.logger });
  const org = await quad.createOrg({ prefix: 'logd', modules: { toolbox: true } });
  const { token } = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'agent', kind: 'agent', scopes: ['toolbox:read'] }, { kind: 'officer', actor: 'test' });
  const url = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`;
  const post = (id: string, authorization: string) => fetch(url, {
    method: 'POST',
    headers: { authorization, 'x-request-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'toolbox.echo', arguments: { text: 'hi' } } }),
  });

  const res = await post('req-mcp-1', `Bearer ${token}`);
  t.equal(res.status, 200);
  await res.text();
  const lines = logs.lines.filter((l) => l.reqId === 'req-mcp-1');
  t.equal(lines.length, 1, 'one line for the request');
  t.match(lines[0], { level: 30, msg: 'request', method: 'POST', url: '/mcp', route: '/mcp', status: 200, org: 'logd' });
  t.type(lines[0].ms, 'number');
  t.notOk(logs.messages().some((m) => m === 'incoming request' || m === 'request completed'), "not Fastify's two lines");
  t.notOk(logs.text().includes(token), 'no credential in the logs');

  const refused = await post('req-mcp-2', 'Bearer plat_nope');
  t.equal(refused.status, 401);
  await refused.text();
  t.match(logs.lines.filter((l) => l.reqId === 'req-mcp-2'), [{ msg: 'request', status: 401, route: '/mcp' }], 'refusals are logged too');
});
