// Opaque credentials: random values shown once, stored only as SHA-256 hashes.
import { createHash, randomBytes } from 'node:crypto';

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A URL-safe random string with `bytes` of entropy. */
export const randomSecret = (bytes = 32) => randomBytes(bytes).toString('base64url');

export const MACHINE_TOKEN_PREFIX = 'plat_';
/** Characters of a machine token kept in clear, so officers can tell their tokens apart. */
export const SHOWN_PREFIX_LENGTH = 12;

export const ACCESS_TOKEN_SECONDS = 30 * 60;
export const REFRESH_TOKEN_SECONDS = 7 * 24 * 3600;
export const SIGN_IN_CODE_SECONDS = 60;
export const APP_TOKEN_DAYS = 120;
export const CLI_TOKEN_DAYS = 90;
/** Issuer of our own JWTs; identity-provider tokens carry theirs, which is how the two are told apart. */
export const ISSUER = 'quad';
