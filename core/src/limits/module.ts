// The limits core module: its routes, its prune job and the mcp-independent core limits.
import { defineModule } from '../modules/define.js';

export const limitsModule = defineModule({
  name: 'limits',
  title: 'Limits',
  description: 'Count and rate limits of every module, per org, with superadmin overrides.',
  category: 'Core',
  core: true,
});
