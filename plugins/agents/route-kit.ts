// What every agents route shares: its error answers, its auth policies and the member prefix. The rows a route reads
// are the member's of the path in the token's org (`request.db`, bound to that org by the core).
import { ErrorBody } from '@quad/core';

export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
export const read = { auth: 'machine:agents:read' as const };
export const write = { auth: 'machine:agents:write' as const };
/** The spec's `/api/agents/members/<member_id>`. */
export const MEMBER_PREFIX = '/api/agents/members/:chat_user_id';
