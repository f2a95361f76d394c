// Connecting to Quad's tool server: the machine token travels as a bearer header and decides the org and which
// tools are listed. A refused token is the usual first failure, so the scripts say so in one line.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectToQuad(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'quad-example-agent', version: '0.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** The settings both scripts read (scopes: the token's, comma-separated), or exit 2 saying what is missing. */
export function settingsFromEnv(scopes: string): { url: string; token: string } {
  const url = process.env.QUAD_MCP_URL ?? 'http://localhost:8001/mcp';
  const token = process.env.QUAD_TOKEN;
  if (!token) {
    console.error(`Set QUAD_TOKEN to a machine token (plat_…) with the scopes ${scopes}, made on the Tokens page or POST /api/organizations/<org>/tokens`);
    process.exit(2);
  }
  return { url, token };
}

/** True when the module at `moduleUrl` is the script node was asked to run (through a symlink too, as npm's bin links are). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(moduleUrl);
}

/** Runs a script's main; a refused token exits 3 with one line instead of a stack. */
export async function runMain(url: string, scopes: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    if (err instanceof StreamableHTTPError && err.code === 401) {
      console.error(`The tool server at ${url} refused QUAD_TOKEN (401): it is unknown, revoked or expired. Make a new one: \`npx quad token create --org <prefix> --name agent --kind agent --scopes ${scopes}\`, the Tokens page, or POST /api/organizations/<org>/tokens.`);
      process.exit(3);
    }
    throw err;
  }
}
