// The officers' route (the Agents page): what the org's agents keep, counted, and for how long. Officers have no
// route to the data itself (spec "Authentication"): this answers numbers only.
import { OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { orgStats } from '../stats.js';
import { Errors } from '../route-kit.js';
import { MODULE, type AgentsSettings } from '../settings.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const StatsOut = Type.Object({
  retention_days: Type.Integer({ description: 'AGENT_RETENTION_DAYS: conversations with no update this long are deleted by agents.prune' }),
  members: Count('members the agents keep anything about'),
  conversations: Count('conversations'),
  messages: Count('messages of those conversations'),
  memories: Count('unexpired memories'),
  sensitive_memories: Count('of those, sensitive ones (encrypted at rest)'),
  profile_relations: Count('relations of the members\' profile graphs'),
  pending_actions: Count('actions waiting for a member\'s answer'),
});

export default (async (app) => {
  app.get('/api/agents/:org/stats', {
    config: { auth: 'officer' },
    schema: {
      tags: ['agents'], summary: 'How much the org\'s agents keep (counts only, nothing of any member) and for how long',
      params: OrgParams, response: { 200: StatsOut, ...Errors },
    },
  }, async (request) => ({
    retention_days: app.quad.moduleSettings<AgentsSettings>(MODULE).AGENT_RETENTION_DAYS,
    ...await orgStats(request.db),
  }));
}) satisfies RoutesPlugin;
