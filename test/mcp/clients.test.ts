// What an MCP client that follows the spec meets on the tool port: the protected-resource metadata (RFC 9728), a
// 401 that points to it, the API port's 404 body, and core tools whose structuredContent follows their outputSchema
// (the SDK's Client checks it on every call).
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp } from '@quad/core/testing';

t.test('MCP clients', async (t) => {
  const quad = await startTestApp(t, { listen: true });
  const base = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}`;
  const org = await quad.createOrg({ prefix: 'acm', name: 'ACM Chapter' });

  t.test('the protected-resource metadata names the resource and the bearer method', async (t) => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${base}${path}`);
      t.equal(res.status, 200, path);
      t.match(res.headers.get('content-type'), /application\/json/);
      const body = await res.json() as Record<string, unknown>;
      t.same(Object.keys(body).sort(), ['bearer_methods_supported', 'resource', 'resource_name', 'scopes_supported']);
      t.equal(body.resource, `${base}/mcp`);
      t.same(body.bearer_methods_supported, ['header']);
      t.ok((body.scopes_supported as string[]).includes('org:read') && (body.scopes_supported as string[]).includes('tokens:manage'));
    }
  });

  t.test('a 401 from /mcp points to the metadata', async (t) => {
    for (const authorization of [undefined, 'Bearer plat_nope']) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      t.equal(res.status, 401);
      t.match(res.headers.get('www-authenticate'), new RegExp(`^Bearer realm="quad", resource_metadata="${base}/\\.well-known/oauth-protected-resource/mcp", error="invalid_token"`));
    }
  });

  t.test('an unknown path is the API port\'s 404', async (t) => {
    const res = await fetch(`${base}/nowhere?x=1`);
    t.equal(res.status, 404);
    t.same(await res.json(), { error: 'Route GET /nowhere not found', reason: 'route_not_found' });
    t.same((await quad.api.inject('/nowhere?x=1')).json(), { error: 'Route GET /nowhere not found', reason: 'route_not_found' }, 'as on the API port');
  });

  t.test('core tools declare outputSchema and their results follow it', async (t) => {
    const { token } = await quad.issueToken(org.id, { name: 'agent', kind: 'agent', scopes: ['org:read', 'tokens:manage'] });
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    t.teardown(() => client.close());
    const { tools } = await client.listTools();
    const core = ['modules.list', 'org.info', 'org.limits', 'tokens.create', 'tokens.list', 'tokens.revoke'];
    t.same(tools.map((tool) => tool.name).sort(), core);
    for (const tool of tools) t.equal(tool.outputSchema?.type, 'object', `${tool.name} declares an outputSchema`);
    // The Client validates structuredContent against the listed outputSchema: a mismatch would throw here.
    for (const name of ['modules.list', 'org.info', 'org.limits', 'tokens.list']) {
      const result = await client.callTool({ name, arguments: {} });
      t.notOk(result.isError, name);
      t.type(result.structuredContent, 'object', name);
    }
    const preview = await client.callTool({ name: 'tokens.create', arguments: { name: 'ci', kind: 'agent', scopes: ['org:read'] } });
    t.match(preview.structuredContent, { confirm_required: true, preview: { action: 'create a machine token' } });
    const created = await client.callTool({ name: 'tokens.create', arguments: { name: 'ci', kind: 'agent', scopes: ['org:read'], confirm: true } });
    t.match(created.structuredContent, { token: /^plat_/, record: { name: 'ci', scopes: ['org:read'] } });
    const id = (created.structuredContent as { record: { id: number } }).record.id;
    const revoked = await client.callTool({ name: 'tokens.revoke', arguments: { id, confirm: true } });
    t.same(revoked.structuredContent, { revoked: true, id });
  });
});
