// Outbound HTTP to URLs that users or orgs give us (crawled pages, an org's embeddings, rendering or search service,
// monitors, webhooks): http(s) only, no credentials in the URL, and every connection dialled only to a public
// address or one the operator opened (ALLOWED_PRIVATE_ADDRESSES). The check sits in undici's connector, on the address actually dialled after DNS, so neither an IP literal
// in any spelling nor a DNS answer that changes between two lookups (rebinding) can reach a private network.
// Redirects are followed here one hop at a time (each hop dials through the same connector), bodies are capped and
// every request has a total deadline. Operator URLs from the deployment's settings pass `trusted: true`: same
// client and caps, no address check (an operator may run the embeddings service on loopback).
import { lookup, Resolver } from 'node:dns/promises';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { isLocalhostName, normaliseAddress, refusedRange } from './address-policy.js';
import { allowanceGeneration } from './private-allowance.js';

/** A plain GET of a page: the spec's crawl cap. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const CONNECT_TIMEOUT_MS = 10_000;

export type SafeFetchFailure =
  /** Refused before any byte left: scheme, credentials in the URL, or an address that is not public. */
  | 'refused'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  /** DNS, connection or protocol failure. */
  | 'network';

/** Why a fetch did not give a response. The message names the URL's host, never a resolved address. */
export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  constructor(readonly reason: SafeFetchFailure, message: string) {
    super(message);
  }
}

export interface SafeFetchOptions {
  /** Default GET. */
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Bytes of the response body; more fails with `too_large`. Default: 10 MB. */
  maxBytes?: number;
  /** Redirects followed (each re-checked); one more fails with `too_many_redirects`. Default 5; 0 returns the 3xx. */
  maxRedirects?: number;
  /** Deadline of the whole exchange, redirects and body included. Default: 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The URL comes from the deployment's own settings (an operator's), not from a user or an org: private addresses
   * are allowed. Never set it for a URL a user or an org can change. Default: false.
   */
  trusted?: boolean;
}

export interface SafeResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  ok: boolean;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
  /** The body decoded with the charset of its content-type (UTF-8 when none or unknown). */
  text(): string;
  /** The body as JSON; throws SyntaxError when it is not. */
  json(): unknown;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Fetch `url` under the rules above; throws SafeFetchError for every way it can fail to get a response. */
export async function safeFetch(url: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const trusted = options.trusted === true;
  let current = checkUrl(url, trusted);
  let method = options.method ?? 'GET';
  let body = options.body;
  let headers = { ...options.headers };
  for (let hop = 0; ; hop++) {
    const res = await send(current, { method, headers, body, signal, trusted }, deadline, timeoutMs);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode) || typeof location !== 'string' || maxRedirects === 0) {
      return respond(current, res, options.maxBytes ?? DEFAULT_MAX_BYTES, deadline, timeoutMs);
    }
    await res.body.dump().catch(() => {});
    if (hop >= maxRedirects) throw new SafeFetchError('too_many_redirects', `${current.host} redirected more than ${maxRedirects} times`);
    const next = checkUrl(new URL(location, current), trusted);
    // A 303, or a 301/302 after a POST as browsers do, turns into a GET without the body.
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    // Credentials are for the origin they were given to.
    if (next.origin !== current.origin) headers = withoutCredentials(headers);
    current = next;
  }
}

/** http(s), no user name or password, not a localhost name unless trusted: anything else is refused before a lookup. */
function checkUrl(input: string | URL, trusted: boolean): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SafeFetchError('refused', 'The URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SafeFetchError('refused', `Only http and https URLs are fetched (not ${url.protocol.replace(/:$/, '')})`);
  if (url.username || url.password) throw new SafeFetchError('refused', 'URLs with a user name or password are not fetched');
  if (!trusted && isLocalhostName(url.hostname)) throw new SafeFetchError('refused', `${url.hostname} is a loopback address: refused`);
  return url;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!['authorization', 'cookie', 'proxy-authorization'].includes(k.toLowerCase())) out[k] = v;
  return out;
}

interface SendInit { method: string; headers: Record<string, string>; body: string | Uint8Array | undefined; signal: AbortSignal; trusted: boolean }

async function send(url: URL, init: SendInit, deadline: AbortSignal, timeoutMs: number): Promise<Dispatcher.ResponseData> {
  try {
    const { request } = await loadUndici();
    return await request(url, {
      method: init.method as Dispatcher.HttpMethod, headers: init.headers, body: init.body, signal: init.signal,
      dispatcher: init.trusted ? await trustedAgent() : await publicAgent(),
    });
  } catch (err) {
    throw failure(err, url, deadline, timeoutMs);
  }
}

async function respond(url: URL, res: Dispatcher.ResponseData, maxBytes: number, deadline: AbortSignal, timeoutMs: number): Promise<SafeResponse> {
  const headers = headerRecord(res.headers);
  const tooLarge = () => new SafeFetchError('too_large', `${url.host} answered more than ${formatBytes(maxBytes)}`);
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw tooLarge();
  }
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw tooLarge();
      }
      parts.push(chunk as Buffer);
    }
  } catch (err) {
    throw failure(err, url, deadline, timeoutMs);
  }
  const body = Buffer.concat(parts, size);
  return {
    url: url.href, status: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, headers, body,
    text: () => decode(body, headers['content-type']),
    json: () => JSON.parse(decode(body, headers['content-type'])),
  };
}

function headerRecord(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function decode(body: Buffer, contentType: string | undefined): string {
  const charset = /charset="?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const formatBytes = (n: number) => (n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MB` : `${n} bytes`);

/** Every failure as a SafeFetchError whose message an officer can act on; refusals from the connector pass as they are. */
function failure(err: unknown, url: URL, deadline: AbortSignal, timeoutMs: number): SafeFetchError {
  if (err instanceof SafeFetchError) return err;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof SafeFetchError) return cause;
  if (deadline.aborted) return new SafeFetchError('timeout', `${url.host} did not answer within ${timeoutMs / 1000} s`);
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  if (e.name === 'AbortError') return new SafeFetchError('timeout', `The request to ${url.host} was cancelled`);
  const code = e.code ?? e.cause?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new SafeFetchError('timeout', `${url.host} did not accept a connection within ${CONNECT_TIMEOUT_MS / 1000} s`);
  if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_AGAIN') return new SafeFetchError('network', `${url.hostname} does not resolve`);
  if (code === 'ECONNREFUSED') return new SafeFetchError('network', `${url.host} refused the connection`);
  return new SafeFetchError('network', `${url.host} cannot be reached${code ? ` (${code})` : ''}`);
}

// ---- the connector ----

type Resolve = (hostname: string) => Promise<string[]>;

const systemResolve: Resolve = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
let resolve: Resolve = systemResolve;

/**
 * Tests only (exported from @quad/core/testing): resolve names with this DNS server (`127.0.0.1:5353`) instead of
 * the system's resolver, e.g. a fake whose answers change between lookups. Returns the undo.
 */
export function resolveWithDnsServerForTests(server: string): () => void {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([server]);
  resolve = async (hostname) => {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (!addresses.length) throw Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' });
    return addresses;
  };
  return () => { resolve = systemResolve; };
}

/**
 * The addresses `hostname` resolves to, every one public (or opened by the operator); else a refusal that names the
 * host, not the address.
 */
async function publicAddresses(hostname: string): Promise<string[]> {
  const literal = normaliseAddress(hostname);
  const found = literal !== null ? [literal] : await resolve(hostname.replace(/\.$/, '') || hostname);
  for (const address of found) {
    const range = refusedRange(address, hostname);
    if (range !== null) throw new SafeFetchError('refused', `${hostname} is ${literal !== null ? 'a' : 'at a'} ${describeRange(range)} address: refused`);
  }
  return found;
}

/**
 * Check a URL without fetching it, for a service that will fetch it for us (a page-rendering service): the same
 * scheme, credential and address rules as safeFetch. Throws SafeFetchError; DNS failures are `network`.
 */
export async function assertPublicUrl(input: string | URL): Promise<URL> {
  const url = checkUrl(input, false);
  try {
    await publicAddresses(url.hostname);
  } catch (err) {
    if (err instanceof SafeFetchError) throw err;
    throw new SafeFetchError('network', `${url.hostname} does not resolve`);
  }
  return url;
}

/**
 * Resolve once and dial exactly what was checked: every address of the answer must be public (a name with one
 * private address among public ones is refused whole), and the socket's peer is checked again once connected.
 */
function checkedConnector(build: typeof buildConnector): buildConnector.connector {
  const dial = build({ timeout: CONNECT_TIMEOUT_MS });
  return (options, callback) => {
    const hostname = options.hostname;
    publicAddresses(hostname).then(([address]) => {
      // TLS still checks the certificate against the name, not the address.
      const servername = options.servername ?? (normaliseAddress(hostname) === null ? hostname.replace(/\.$/, '') : undefined);
      dial({ ...options, hostname: address, servername }, (err, socket) => {
        if (err) return callback(err, null);
        const peer = socket!.remoteAddress;
        if (!peer || refusedRange(peer, hostname) !== null) {
          socket!.destroy();
          return callback(new SafeFetchError('refused', `${hostname} connected to an address that is not public: refused`), null);
        }
        callback(null, socket!);
      });
    }).catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null));
  };
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    loopback: 'loopback', private: 'private', linkLocal: 'link-local', carrierGradeNat: 'carrier-grade NAT', uniqueLocal: 'unique-local',
    multicast: 'multicast', unspecified: 'unspecified', broadcast: 'broadcast', reserved: 'reserved',
  };
  return names[range] ?? `non-public (${range})`;
}

let publicDispatcher: Agent | null = null;
let trustedDispatcher: Agent | null = null;
const agentOptions = { headersTimeout: DEFAULT_TIMEOUT_MS, bodyTimeout: DEFAULT_TIMEOUT_MS, keepAliveTimeout: 4000 };
// undici is loaded on the first request (about 60 ms): a process that never fetches, such as a CLI command, skips it.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));
let publicGeneration = -1;
const publicAgent = async () => {
  const { Agent: Dispatching, buildConnector: build } = await loadUndici();
  // Connections are checked when dialled: a kept-alive one was checked under the allowance of its time.
  if (publicGeneration !== allowanceGeneration()) {
    void publicDispatcher?.destroy().catch(() => {});
    publicDispatcher = null;
    publicGeneration = allowanceGeneration();
  }
  return (publicDispatcher ??= new Dispatching({ ...agentOptions, connect: checkedConnector(build) }));
};
const trustedAgent = async () => {
  const { Agent: Dispatching } = await loadUndici();
  return (trustedDispatcher ??= new Dispatching({ ...agentOptions, connect: { timeout: CONNECT_TIMEOUT_MS } }));
};
