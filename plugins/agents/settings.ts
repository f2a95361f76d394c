// The agents module's deployment settings (manifest `settings`).
import { Type, type Static } from '@quad/core';

export const MODULE = 'agents';

export const AgentsSettingsSchema = Type.Object({
  AGENT_RETENTION_DAYS: Type.Integer({ default: 180, minimum: 1, maximum: 3650, description: 'conversations with no update for this many days are deleted by agents.prune' }),
});
export type AgentsSettings = Static<typeof AgentsSettingsSchema>;
