// What every agents route shares: its error answers, its auth policies, the member prefix, and the owner of the
// rows it reads (the token's org and the member of the path).
import { ErrorBody } from '@quad/core';
import type { Owner } from './conversations.js';

export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
export const read = { auth: 'machine:agents:read' as const };
export const write = { auth: 'machine:agents:write' as const };
/** The spec's `/api/agents/members/<member_id>`. */
export const MEMBER_PREFIX = '/api/agents/members/:chat_user_id';

export const ownerOf = (request: { org?: { id: number } | null; params: { chat_user_id: string } }): Owner =>
  ({ orgId: request.org!.id, member: request.params.chat_user_id });
