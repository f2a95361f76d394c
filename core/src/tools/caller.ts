// A machine token as a tool caller.
import type { MachineTokenEntity } from '../auth/entities.js';
import type { ToolCaller } from '../modules/types.js';

export function toolCaller(token: MachineTokenEntity): ToolCaller {
  return { actor: `machine:${token.id}`, tokenId: token.id, scopes: token.scopes, limits: token.limits };
}
