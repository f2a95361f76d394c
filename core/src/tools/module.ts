// The tool server core module (`mcp`): /api/tools, the limit on tool calls, the generic remote integration `mcp`
// (any service with an MCP server; its connection test lists the server's tools) and the scopes that grant remote
// tools (mcp:github, mcp:remote). The MCP endpoint itself listens on TOOL_PORT (see mcp-server.ts); core tools are
// declared by the tokens, org and modules modules; remote tools are listed and forwarded by remote-tools.ts.
import { defineModule } from '../modules/define.js';
import { modulesList } from './core-tools.js';
import { testRemoteIntegration } from './remote-tools.js';
import { toolRoutes } from './routes.js';

export const MCP_URL_SECRET = 'mcp.url';
export const MCP_TOKEN_SECRET = 'mcp.token';

export const mcpModule = defineModule({
  name: 'mcp',
  title: 'Tool server',
  description: 'Tools of every module over MCP (port 8001, /mcp) and /api/tools, and the tools of connected services\' own MCP servers.',
  category: 'Core',
  core: true,
  limits: [{ key: 'mcp.calls_per_minute', kind: 'rate', window: 'minute', default: 300, paidBy: 'metered', description: 'Tool calls a minute over MCP and /api/tools; each call of a batch counts' }],
  integrations: [{
    key: 'mcp',
    title: 'MCP server',
    description: 'Any service with an MCP server (Streamable HTTP): tokens with mcp:remote call its tools as mcp.<tool>, with the token below as a bearer.',
    secrets: [
      // A URL is not a credential: officers may read it back.
      { name: MCP_URL_SECRET, label: 'Server URL (https://…/mcp)', readable: true },
      { name: MCP_TOKEN_SECRET, label: 'Bearer token', optional: true },
    ],
    // Lists the server's tools with the org's URL and token, as the tool server would (uncached).
    test: (ctx) => testRemoteIntegration('mcp', ctx),
    remote: true,
    mcp: {
      // The org's URL: reached through the safe fetcher, public addresses only.
      url: (values) => values[MCP_URL_SECRET],
      headers: (values): Record<string, string> => (values[MCP_TOKEN_SECRET] ? { authorization: `Bearer ${values[MCP_TOKEN_SECRET]}` } : {}),
    },
  }],
  scopes: [
    { name: 'mcp:github', description: 'Call GitHub\'s own MCP tools (github.<tool>) with the org\'s GitHub token, narrowed by limits.github (tools and repos patterns)', integration: 'github' },
    { name: 'mcp:remote', description: 'Call the tools of the org\'s own MCP server (integration mcp) as mcp.<tool>, narrowed by limits.mcp', integration: 'mcp' },
  ],
  routes: toolRoutes,
});

/** Home of the modules.list tool (its namespace is `modules`). */
export const modulesModule = defineModule({
  name: 'modules',
  title: 'Modules',
  description: 'The org\'s modules, for agents.',
  category: 'Core',
  core: true,
  tools: [modulesList],
});
