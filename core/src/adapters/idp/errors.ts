// Errors of the identity-provider adapter: a member's token is refused (IdpTokenInvalid) or the provider
// cannot answer for us (IdpUnavailable). Messages never carry the token, its claims or the secret key,
// because callers log them.

export type IdpTokenInvalidReason =
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'not_yet_valid'
  | 'azp'
  | 'unknown_key'
  | 'unknown_user'
  | 'no_email';

const reasonText: Record<IdpTokenInvalidReason, string> = {
  malformed: 'session token is malformed',
  signature: 'session token signature is invalid',
  expired: 'session token has expired',
  not_yet_valid: 'session token is not valid yet',
  azp: 'session token was issued to an unauthorized party',
  unknown_key: 'session token is signed with an unknown key',
  unknown_user: 'session token names a user the identity provider does not know',
  no_email: 'user has no primary email address',
};

/** The token is not acceptable: bad signature, expired, not yet valid, wrong azp, malformed, unknown kid after refetch. */
export class IdpTokenInvalid extends Error {
  override name = 'IdpTokenInvalid';
  readonly reason: IdpTokenInvalidReason;
  constructor(reason: IdpTokenInvalidReason) {
    super(reasonText[reason]);
    this.reason = reason;
  }
}

/** The provider could not be reached or is not configured (no secret key): callers answer 503/401 as their policy says. */
export class IdpUnavailable extends Error {
  override name = 'IdpUnavailable';
}
