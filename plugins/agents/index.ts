// @quad/plugin-agents: the agents module (spec document 2, "Agents"): the memory of agents that talk to members.
// An agent keeps no database of its own; with an agent token of the org it keeps conversations, summaries and
// pending actions per member here (conversations.ts, pending.ts), pruned by agents.prune (prune.ts). Memories, the
// profile graph, turns, members' own data, tools and the dashboard page come with the next increments.
import { defineModule } from '@quad/core';
import { pruneJob } from './prune.js';
import { AgentsSettingsSchema, MODULE } from './settings.js';

export default defineModule({
  name: MODULE,
  title: 'Agents',
  description: 'Memory for the org\'s agents: conversations with members, summaries and actions that wait for a member\'s yes.',
  category: 'AI',
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'agents:read', description: 'Read members\' conversations, summaries and the open conversation of a channel' },
    { name: 'agents:write', description: 'Write conversations, messages and summaries, end a channel\'s conversations, hold and claim pending actions' },
  ],
  migrations: new URL('./migrations/', import.meta.url),
  routes: new URL('./routes/', import.meta.url),
  jobs: [pruneJob],
  settings: AgentsSettingsSchema,
  // The spec names it outside AGENTS_*.
  claims: { settings: ['AGENT_RETENTION_DAYS'] },
});
