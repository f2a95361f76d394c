// The tool server core module (`mcp`): /api/tools and the limit on tool calls. The MCP endpoint itself listens on
// TOOL_PORT (see mcp-server.ts); core tools are declared by the tokens, org and modules modules.
import { defineModule } from '../modules/define.js';
import { modulesList } from './core-tools.js';
import { toolRoutes } from './routes.js';

export const mcpModule = defineModule({
  name: 'mcp',
  title: 'Tool server',
  description: 'Tools of every module over MCP (port 8001, /mcp) and /api/tools.',
  category: 'Core',
  core: true,
  limits: [{ key: 'mcp.calls_per_minute', kind: 'rate', window: 'minute', default: 300, paidBy: 'metered', description: 'Tool calls a minute over MCP and /api/tools; each call of a batch counts' }],
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
