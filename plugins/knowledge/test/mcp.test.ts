// The knowledge tools over MCP with the SDK's own client, as an agent calls them: listed for knowledge:read, and
// knowledge.search, knowledge.read_source and knowledge.embeddings answer the token's org.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pages, startKnowledgeWorld } from './world.js';

t.test('knowledge tools over MCP', async (t) => {
  const w = await startKnowledgeWorld(t, { listen: true });
  const mcpUrl = new URL(`http://127.0.0.1:${(w.quad.mcp!.server.address() as { port: number }).port}/mcp`);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${w.readerToken}` } } }));
  t.teardown(() => client.close());

  await w.put('handbook/hours', { title: 'Hours', chunks: pages('The library opens at nine on Sunday.', 'The gym closes at midnight.') });
  await w.put('beta/hours', { chunks: pages('Beta library opens at noon.') }, w.betaToken);

  const { tools } = await client.listTools();
  t.same(tools.map((x) => x.name).sort(), ['knowledge.crawls', 'knowledge.embeddings', 'knowledge.read_source', 'knowledge.runs', 'knowledge.search']);
  t.ok(tools.find((x) => x.name === 'knowledge.search')!.annotations?.readOnlyHint, 'search is read-only');

  const found = await client.callTool({ name: 'knowledge.search', arguments: { query: 'library Sunday', top_k: 3 } });
  t.notOk(found.isError, JSON.stringify(found.content));
  const answer = found.structuredContent as { results: { chunk_id: number; source_key: string; content: string }[]; dense: boolean };
  t.equal(answer.dense, true);
  t.equal(answer.results[0].content, 'The library opens at nine on Sunday.');
  t.ok(answer.results.every((r) => r.source_key === 'handbook/hours'), 'beta\'s private passage is not found');

  const read = await client.callTool({ name: 'knowledge.read_source', arguments: { chunk: answer.results[0].chunk_id } });
  t.match(read.structuredContent, { key: 'handbook/hours', title: 'Hours', own: true, text: 'The library opens at nine on Sunday.\nThe gym closes at midnight.', next_offset: null });

  const counts = await client.callTool({ name: 'knowledge.embeddings', arguments: {} });
  t.same(counts.structuredContent, { current_model: 'fake-1', models: [{ model: 'fake-1', passages: 2 }], without_vector: 0 });
});
