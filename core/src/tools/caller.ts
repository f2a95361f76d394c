// A machine token as a tool caller.
import type { VerifiedMachineToken } from '../auth/machine-tokens.js';
import type { ToolCaller } from '../modules/types.js';

export function toolCaller(token: VerifiedMachineToken): ToolCaller {
  return { actor: `machine:${token.id}`, tokenId: token.id, scopes: token.scopes, limits: token.limits };
}
