// An agent's first minute with Quad: connect to the tool server with a machine token, see which tools the token
// may call, and call one. Run: QUAD_MCP_URL=http://localhost:8001/mcp QUAD_TOKEN=plat_… npx tsx agent.ts [tool] [json]
import { connectToQuad, isMain, runMain, settingsFromEnv } from './connect.js';

export async function runAgent(options: { url: string; token: string; tool?: string; args?: Record<string, unknown>; print?: (line: string) => void }) {
  const print = options.print ?? ((line: string) => console.log(line));
  const client = await connectToQuad(options.url, options.token);
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

if (isMain(import.meta.url)) {
  const { url, token } = settingsFromEnv('org:read');
  const [tool, json] = process.argv.slice(2);
  await runMain(url, 'org:read', () => runAgent({ url, token, tool, args: json ? JSON.parse(json) : undefined }));
}
