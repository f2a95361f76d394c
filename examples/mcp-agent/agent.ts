// An agent's first minute with Quad: connect to the tool server with a machine token, see which tools the token
// may call, and call one. Run: QUAD_MCP_URL=http://localhost:8001/mcp QUAD_TOKEN=plat_… npx tsx agent.ts [tool] [json]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function runAgent(options: { url: string; token: string; tool?: string; args?: Record<string, unknown>; print?: (line: string) => void }) {
  const print = options.print ?? ((line: string) => console.log(line));
  const client = new Client({ name: 'quad-example-agent', version: '0.1.0' });
  // The token travels as a bearer header; it decides the org and which tools are listed.
  await client.connect(new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers: { authorization: `Bearer ${options.token}` } } }));
  try {
    const { tools } = await client.listTools();
    print(`${tools.length} tools:`);
    for (const tool of tools) print(`  ${tool.name}${tool.annotations?.readOnlyHint ? ' (read-only)' : ''} — ${tool.description?.split('. ')[0] ?? ''}`);
    const name = options.tool ?? tools.find((t) => t.name === 'org.info')?.name ?? tools[0]?.name;
    if (!name) return;
    const result = await client.callTool({ name, arguments: options.args ?? {} });
    // Destructive tools answer confirm_required first; a real agent shows the preview and asks before confirming.
    print(`${name} -> ${JSON.stringify(result.structuredContent ?? result.content)}`);
  } finally {
    await client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.QUAD_MCP_URL ?? 'http://localhost:8001/mcp';
  const token = process.env.QUAD_TOKEN;
  if (!token) {
    console.error('Set QUAD_TOKEN to a machine token (plat_…) with org:read, made on the Tokens page or POST /api/organizations/<org>/tokens');
    process.exit(2);
  }
  const [tool, json] = process.argv.slice(2);
  try {
    await runAgent({ url, token, tool, args: json ? JSON.parse(json) : undefined });
  } catch (err) {
    // A refused token is the usual first failure: say so in one line, not with a stack.
    if (err instanceof StreamableHTTPError && err.code === 401) {
      console.error(`The tool server at ${url} refused QUAD_TOKEN (401): it is unknown, revoked or expired. Make a new one: \`npx quad token create --org <prefix> --name agent --kind agent --scopes org:read\`, the Tokens page, or POST /api/organizations/<org>/tokens.`);
      process.exit(3);
    }
    throw err;
  }
}
