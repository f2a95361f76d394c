// Fake of the Clerk-compatible identity provider: a real HTTP server serving GET /jwks and GET /users/:id with
// Clerk's JSON shapes behind the bearer secret key, plus controls to mint RS256 session tokens, rotate keys,
// go down (502, unreachable, or held past any timeout), and inspect the requests it received.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { outageControls } from '../outage.js';

export interface FakeIdpUser {
  id: string;
  primaryEmailAddressId: string | null;
  emails: { id: string; email: string }[];
}

export interface IssueTokenOptions {
  /** Authorized party; default `FakeIdp.defaultAzp`; null leaves the claim out. */
  azp?: string | null;
  /** Seconds from now until `exp`; negative for an expired token. Default 60. */
  expiresIn?: number;
  /** Seconds from now for `nbf`; default 0. */
  notBefore?: number;
  /** Header `kid`; default the current key's. */
  kid?: string;
  /** Session id (`sid`); default a fresh one. */
  sid?: string;
  /** `foreign` signs with a key the JWKS does not serve (keeping the current kid unless `kid` is given). */
  signWith?: 'current' | 'foreign';
}

export interface FakeIdp {
  readonly url: string;
  readonly secretKey: string;
  readonly defaultAzp: string;
  /** Every request received, in order, e.g. `{ method: 'GET', path: '/jwks' }`. */
  readonly requests: { method: string; path: string }[];
  addUser(user: { id?: string; emails: string[]; primary?: string }): FakeIdpUser;
  issueToken(userId: string, opts?: IssueTokenOptions): Promise<string>;
  /** Makes a new current key with a new kid; the JWKS keeps serving the old ones too. */
  rotateKey(): Promise<void>;
  /** While on, every request is answered 502. */
  down(on: boolean): void;
  /**
   * While on, every connection is closed as soon as it opens (kept-alive ones at their next request), before any
   * answer: what a client sees when nothing answers at the provider's address (a network error, no HTTP status).
   */
  unreachable(on: boolean): void;
  /**
   * While on, requests (only those whose path matches `only`, when given) get no answer until it is turned off (or
   * the fake closes): a provider slower than any timeout. Turning it off answers the held requests as usual.
   */
  hold(on: boolean, only?: RegExp): void;
  /** Requests held by `hold` and not answered yet. */
  readonly holding: number;
  close(): Promise<void>;
}

interface SigningKey { kid: string; privateKey: CryptoKey; jwk: JWK }

const newKey = async (): Promise<SigningKey> => {
  const kid = `ins_${randomBytes(8).toString('hex')}`;
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
};

const clerkError = (message: string, longMessage: string, code: string) =>
  ({ errors: [{ message, long_message: longMessage, code }], clerk_trace_id: randomUUID().replace(/-/g, '') });

const DEFAULT_AZP = 'http://localhost:3000';

export async function startFakeIdp(opts: { secretKey?: string } = {}): Promise<FakeIdp> {
  const secretKey = opts.secretKey ?? `sk_test_${randomBytes(16).toString('hex')}`;
  const [first, foreign] = await Promise.all([newKey(), newKey()]);
  const keys: SigningKey[] = [first];
  // RSA key generation can take hundreds of ms on a loaded machine; keeping the next key ready makes
  // rotateKey() quick, so tests timing refetch cooldowns around it stay reliable.
  let nextKey = newKey();
  const users = new Map<string, FakeIdpUser>();
  const requests: { method: string; path: string }[] = [];
  let isDown = false;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const userJson = (u: FakeIdpUser) => ({
    id: u.id,
    object: 'user',
    username: null,
    first_name: null,
    last_name: null,
    image_url: 'https://img.clerk.com/default',
    has_image: false,
    primary_email_address_id: u.primaryEmailAddressId,
    primary_phone_number_id: null,
    primary_web3_wallet_id: null,
    email_addresses: u.emails.map((e) => ({
      id: e.id,
      object: 'email_address',
      email_address: e.email,
      reserved: false,
      verification: { status: 'verified', strategy: 'email_code', attempts: 1, expire_at: null },
      linked_to: [],
    })),
    phone_numbers: [],
    web3_wallets: [],
    external_accounts: [],
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    banned: false,
    locked: false,
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
    last_sign_in_at: null,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (outage.unreachable) return void req.socket.destroy();
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    requests.push({ method: req.method ?? 'GET', path });
    if (isDown) return send(res, 502, { error: 'bad gateway' });
    await outage.gate(path);
    if (res.destroyed) return;
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return send(res, 401, clerkError('Invalid authentication', 'Unable to authenticate request', 'authentication_invalid'));
    }
    if (req.method === 'GET' && path === '/jwks') return send(res, 200, { keys: keys.map((k) => k.jwk) });
    const m = /^\/users\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const user = users.get(decodeURIComponent(m[1]!));
      if (!user) return send(res, 404, clerkError('not found', 'Resource not found', 'resource_not_found'));
      return send(res, 200, userJson(user));
    }
    return send(res, 404, clerkError('not found', 'Resource not found', 'resource_not_found'));
  };

  const server = createServer((req, res) => void handle(req, res));
  const outage = outageControls(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    secretKey,
    defaultAzp: DEFAULT_AZP,
    requests,
    addUser({ id, emails, primary }) {
      const user: FakeIdpUser = {
        id: id ?? `user_${randomBytes(12).toString('hex')}`,
        emails: emails.map((email) => ({ id: `idn_${randomBytes(12).toString('hex')}`, email })),
        primaryEmailAddressId: null,
      };
      const primaryEmail = primary ?? emails[0];
      const found = user.emails.find((e) => e.email === primaryEmail);
      if (primary !== undefined && !found) throw new Error(`addUser: primary ${primary} is not one of the emails`);
      user.primaryEmailAddressId = found?.id ?? null;
      users.set(user.id, user);
      return user;
    },
    async issueToken(userId, o = {}) {
      const current = keys[keys.length - 1]!;
      const signer = o.signWith === 'foreign' ? foreign : current;
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = { sid: o.sid ?? `sess_${randomBytes(12).toString('hex')}` };
      const azp = o.azp === undefined ? DEFAULT_AZP : o.azp;
      if (azp !== null) claims.azp = azp;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: o.kid ?? current.kid })
        .setSubject(userId)
        .setIssuer(url)
        .setIssuedAt(now)
        .setNotBefore(now + (o.notBefore ?? 0))
        .setExpirationTime(now + (o.expiresIn ?? 60))
        .sign(signer.privateKey);
    },
    async rotateKey() {
      keys.push(await nextKey);
      nextKey = newKey();
    },
    down(on) {
      isDown = on;
    },
    unreachable: (on) => outage.setUnreachable(on),
    hold: (on, only) => outage.hold(on, only),
    get holding() {
      return outage.holding;
    },
    close() {
      outage.releaseAll();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
