// The kinds of caller the auth policies recognise, set on request.caller.
import type { Caller } from '../http/types.js';
import type { CredentialKind } from './access.js';
import type { VerifiedMachineToken } from './machine-tokens.js';

export interface OfficerCaller extends Caller {
  kind: 'officer';
  chatUserId: string;
  username: string;
  /** An access token from sign-in, or a legacy app token. */
  credential: 'access_token' | 'app_token';
  jti: string;
  /** dual_auth_required's clerk_user_email: the token's username for platform tokens. */
  email: string;
}

export interface MachineCaller extends Caller {
  kind: 'machine';
  credential: 'machine_token';
  token: VerifiedMachineToken;
  orgId: number;
  scopes: string[];
}

export interface IdpCaller extends Caller {
  kind: 'idp';
  credential: 'idp_token';
  userId: string;
  email: string;
}

export interface MemberCaller extends Caller {
  kind: 'member';
  credential: 'session';
  chatUserId: string;
  username: string | null;
}

export type AnyCaller = OfficerCaller | MachineCaller | IdpCaller | MemberCaller;

export function credentialOf(caller: Caller | null): CredentialKind {
  return ((caller as AnyCaller | null)?.credential ?? 'none') as CredentialKind;
}
