// @quad/plugin-agents: the agents module (spec document 2, "Agents"): the memory of agents that talk to members.
// An agent keeps no database of its own; with an agent token of the org it keeps conversations, summaries, memories,
// a profile graph and pending actions per member here (conversations.ts, memories.ts, profile.ts, pending.ts), reads
// and commits a whole turn (turn.ts, also as tools: tools.ts), and agents.prune deletes what is past its time
// (prune.ts). Members see and delete their own data (routes/me.ts, and their page /agents/<org>/me); officers get
// the numbers only (routes/stats.ts, the Agents page; web/).
import { defineModule } from '@quad/core';
import { pruneJob } from './prune.js';
import { agentsTools } from './tools.js';
import { AgentsSettingsSchema, MODULE } from './settings.js';

export default defineModule({
  name: MODULE,
  title: 'Agents',
  description: 'Memory for the org\'s agents: conversations with members, summaries and actions that wait for a member\'s yes.',
  category: 'AI',
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'agents:read', description: 'Read members\' conversations, summaries, memories and profile graphs', uses: ['embeddings'] },
    { name: 'agents:write', description: 'Write conversations, messages, summaries, memories and profile facts, hold and claim pending actions, delete a member\'s data', uses: ['embeddings'] },
  ],
  tables: { agents_conversations: 'org', agents_messages: 'org', agents_summaries: 'org', agents_pending: 'org', agents_memories: 'org', agents_profile_nodes: 'org', agents_profile_edges: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  databaseExtensions: [{ name: 'vector', without: 'profile nodes keep no vectors and GET /profile/similar answers 503' }],
  routes: new URL('./routes/', import.meta.url),
  tools: agentsTools,
  jobs: [pruneJob],
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'agents', title: 'Agents', icon: 'bot', component: 'AgentsPage' }],
    memberPages: [{ path: 'me', title: 'Your data with the agents', component: 'MyAgentDataPage' }],
  },
  settings: AgentsSettingsSchema,
  // The spec names it outside AGENTS_*.
  claims: { settings: ['AGENT_RETENTION_DAYS'] },
});
