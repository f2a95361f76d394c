// The knowledge plugin's embeddings adapter: one OpenAI-compatible service (POST <base>/embeddings), batched, with
// a timeout, a bearer key and strict checks on the answer. Every failure becomes an EmbedderFailed whose message an
// officer can act on (status and a hint; never the key, never a stack). Which service an org uses: its own
// `embeddings` integration when connected, else the deployment default from settings, else none (text search only).
// This file imports nothing else of the plugin: the manifest declares the integration with EMBEDDINGS_SECRETS.
import { safeFetch, SafeFetchError, type EntityManager, type SecretsService } from '@quad/core';

/** Every vector the knowledge tables hold has this many numbers. */
export const EMBEDDING_DIMENSIONS = 1024;

/** A vector as pgvector's text form (`[1,2,3]`), for a `?::vector` parameter. */
export const vectorLiteral = (v: number[]) => `[${v.join(',')}]`;
/** Texts per request: well under the usual service limits (OpenAI allows 2048 inputs). */
export const EMBED_BATCH_SIZE = 64;
/** Per request, answer body included: the default of KNOWLEDGE_EMBED_TIMEOUT_MS. */
export const EMBED_TIMEOUT_MS = 30_000;

/** The org secrets of the `embeddings` integration. `url` and `model` connect it; the others are optional. */
export const EMBEDDINGS_SECRETS = {
  url: 'embeddings.url',
  model: 'embeddings.model',
  apiKey: 'embeddings.api_key',
  queryPrefix: 'embeddings.query_prefix',
} as const;

/** The deployment settings this file reads (a subset of the knowledge plugin's settings). */
export interface KnowledgeSettings {
  /** Base URL ending /v1; unset means no deployment embedder. */
  EMBEDDINGS_URL?: string | null;
  /** Model name sent and kept on each version. Default: `default`. */
  EMBEDDINGS_MODEL?: string | null;
  /** Bearer key for EMBEDDINGS_URL. */
  EMBEDDINGS_API_KEY?: string | null;
  /** Sent instead of an empty EMBEDDINGS_API_KEY when the URL is the model gateway's. */
  GATEWAY_API_KEY?: string | null;
  /**
   * Base URL of the model gateway: an embeddings URL under it is "the gateway's". Unset: no URL is, and
   * GATEWAY_API_KEY is never sent.
   */
  GATEWAY_URL?: string | null;
  /** Put before query texts (not passages). Default: empty. */
  EMBEDDINGS_QUERY_PREFIX?: string | null;
  /** Deadline of one request (a batch), in ms, for the deployment's and the orgs' services. Default: EMBED_TIMEOUT_MS. */
  KNOWLEDGE_EMBED_TIMEOUT_MS?: number | null;
}

/** One OpenAI-compatible embeddings service: POST <baseUrl>/embeddings {model, input: string[]} with a bearer key. */
export interface Embedder {
  /** Kept on each version and passage. */
  readonly model: string;
  /**
   * Vectors of 1024 numbers, in input order (sorted by the answer's `index`), batched. kind 'query' prepends the
   * query prefix; 'passage' sends the text as is. Throws EmbedderFailed on any failure.
   */
  embed(texts: string[], kind: 'query' | 'passage'): Promise<number[][]>;
}

/** The message is safe to show an officer, e.g. "401 from the embeddings service at api.example.com: check the key". */
export class EmbedderFailed extends Error {
  override name = 'EmbedderFailed';
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

export interface EmbedderOptions {
  /** Base URL ending /v1 (a trailing slash is fine). */
  url: string;
  model: string;
  apiKey?: string | null;
  queryPrefix?: string | null;
  /** Default: EMBED_BATCH_SIZE. */
  batchSize?: number;
  /** Default: EMBED_TIMEOUT_MS. */
  timeoutMs?: number;
  /**
   * The URL is the deployment's own (EMBEDDINGS_URL, set by the operator), so it may be on a private network. An
   * org's URL is not: it goes through the safe fetcher's address check. Default: false.
   */
  trusted?: boolean;
}

/** Is `url` under the gateway's base URL (same origin, path below)? */
export function isGatewayUrl(url: string, gatewayUrl: string | null | undefined): boolean {
  if (!gatewayUrl) return false;
  try {
    const u = new URL(url);
    const g = new URL(gatewayUrl);
    const base = g.pathname.replace(/(?<!\/)\/+$/, '');
    return u.origin === g.origin && (u.pathname === base || u.pathname.startsWith(`${base}/`));
  } catch {
    return false;
  }
}

/** The key to send for `url`: its own, else the gateway's default when the URL is the gateway's, else none. */
export function keyFor(url: string, ownKey: string | null | undefined, settings: KnowledgeSettings): string | null {
  if (ownKey) return ownKey;
  if (settings.GATEWAY_API_KEY && isGatewayUrl(url, settings.GATEWAY_URL)) return settings.GATEWAY_API_KEY;
  return null;
}

export function createEmbedder(options: EmbedderOptions): Embedder {
  return new HttpEmbedder(options);
}

/** The deployment default from settings, or null when no URL is set. */
export function defaultEmbedder(settings: KnowledgeSettings): Embedder | null {
  const url = settings.EMBEDDINGS_URL?.trim();
  if (!url) return null;
  return createEmbedder({
    url,
    model: settings.EMBEDDINGS_MODEL || 'default',
    apiKey: keyFor(url, settings.EMBEDDINGS_API_KEY, settings),
    queryPrefix: settings.EMBEDDINGS_QUERY_PREFIX,
    timeoutMs: settings.KNOWLEDGE_EMBED_TIMEOUT_MS ?? undefined,
    trusted: true,
  });
}

/**
 * The org's own service when its `embeddings` integration is connected (url and model set), else the deployment
 * default, else null. `secrets` is the core's secret store (services.secrets). Throws EmbedderFailed when the
 * org's secrets are set but cannot be read, rather than silently embedding with another model.
 */
export async function embedderForOrg(ctx: {
  settings: KnowledgeSettings;
  secrets: Pick<SecretsService, 'configured' | 'names' | 'get'>;
  em: EntityManager;
  orgId: number;
}): Promise<Embedder | null> {
  const { settings, secrets, em, orgId } = ctx;
  if (!secrets.configured) return defaultEmbedder(settings);
  const set = await secrets.names(em, orgId);
  if (!set.has(EMBEDDINGS_SECRETS.url) || !set.has(EMBEDDINGS_SECRETS.model)) return defaultEmbedder(settings);
  const read = async (name: string) => (set.has(name) ? secrets.get(em, orgId, name) : null);
  let own: { url: string | null; model: string | null; apiKey: string | null; queryPrefix: string | null };
  try {
    own = {
      url: await read(EMBEDDINGS_SECRETS.url),
      model: await read(EMBEDDINGS_SECRETS.model),
      apiKey: await read(EMBEDDINGS_SECRETS.apiKey),
      queryPrefix: await read(EMBEDDINGS_SECRETS.queryPrefix),
    };
  } catch {
    throw new EmbedderFailed('The org\'s embeddings secrets cannot be read (was SECRETS_KEY changed?): set them again under Settings → Secrets');
  }
  const url = own.url?.trim();
  if (!url || !own.model) return defaultEmbedder(settings);
  return createEmbedder({
    url, model: own.model, apiKey: keyFor(url, own.apiKey, settings), queryPrefix: own.queryPrefix,
    timeoutMs: settings.KNOWLEDGE_EMBED_TIMEOUT_MS ?? undefined,
  });
}

interface Answer { data?: unknown }

class HttpEmbedder implements Embedder {
  readonly model: string;
  private readonly endpoint: string;
  private readonly where: string;

  constructor(private readonly options: EmbedderOptions) {
    this.model = options.model;
    this.endpoint = `${options.url.replace(/(?<!\/)\/+$/, '')}/embeddings`;
    // Named in messages by host only: a URL may carry credentials in its user info or query.
    let host = 'its URL';
    try { host = new URL(this.endpoint).host; } catch { /* reported by the first call */ }
    this.where = `the embeddings service at ${host}`;
  }

  async embed(texts: string[], kind: 'query' | 'passage'): Promise<number[][]> {
    const prefix = kind === 'query' ? (this.options.queryPrefix ?? '') : '';
    const size = Math.max(1, this.options.batchSize ?? EMBED_BATCH_SIZE);
    const out: number[][] = [];
    // One batch at a time: a shared service, and the order of the answer is the order of the input.
    for (let i = 0; i < texts.length; i += size) {
      out.push(...await this.batch(texts.slice(i, i + size).map((text) => prefix + text)));
    }
    return out;
  }

  private async batch(input: string[]): Promise<number[][]> {
    const timeoutMs = this.options.timeoutMs ?? EMBED_TIMEOUT_MS;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let body: unknown;
    let status: number;
    try {
      const res = await safeFetch(this.endpoint, {
        method: 'POST', headers, body: JSON.stringify({ model: this.model, input }), timeoutMs, maxRedirects: 0, trusted: this.options.trusted,
      });
      status = res.status;
      const text = res.text();
      if (!res.ok) throw new EmbedderFailed(this.statusMessage(status, text), status);
      try { body = JSON.parse(text); } catch { throw new EmbedderFailed(`${this.where} answered something other than JSON: check the URL (it should end in /v1)`, status); }
    } catch (err) {
      if (err instanceof EmbedderFailed) throw err;
      throw new EmbedderFailed(this.networkMessage(err, timeoutMs));
    }
    return this.vectors(body as Answer, input.length, status);
  }

  /** The answer's vectors in input order, each checked. */
  private vectors(answer: Answer, count: number, status: number): number[][] {
    const data = answer && typeof answer === 'object' ? answer.data : undefined;
    if (!Array.isArray(data)) throw new EmbedderFailed(`${this.where} answered without a data list: is it OpenAI-compatible?`, status);
    if (data.length !== count) throw new EmbedderFailed(`${this.where} answered ${data.length} vectors for ${count} texts`, status);
    const out: number[][] = new Array(count);
    for (const item of data as { index?: unknown; embedding?: unknown }[]) {
      const index = item?.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || out[index]) {
        throw new EmbedderFailed(`${this.where} answered a vector with a missing or repeated index`, status);
      }
      const v = item.embedding;
      if (!Array.isArray(v) || v.length !== EMBEDDING_DIMENSIONS) {
        const got = Array.isArray(v) ? `${v.length} numbers` : typeof v === 'string' ? 'a string (base64?)' : 'no vector';
        throw new EmbedderFailed(`${this.where} answered vectors of ${got}; ${EMBEDDING_DIMENSIONS} are needed: choose a model (or dimensions) of ${EMBEDDING_DIMENSIONS}`, status);
      }
      if (!v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbedderFailed(`${this.where} answered a vector with a value that is not a finite number`, status);
      }
      out[index] = v as number[];
    }
    return out;
  }

  private statusMessage(status: number, text: string): string {
    const head = `${status} from ${this.where}`;
    if (status === 401 || status === 403) return `${head}: check the key`;
    if (status === 404) return `${head}: check the URL (it should end in /v1) and the model name "${this.model}"`;
    if (status === 429) return `${head}: rate limited or out of quota; try again later or raise the quota`;
    if (status >= 500) return `${head}: the service failed; try again later`;
    const said = this.serviceSaid(text);
    return `${head}: the request was refused${said ? ` (${said})` : ''}; check the model name "${this.model}"`;
  }

  /** The service's own error message, short and without the key (some services echo it back). */
  private serviceSaid(text: string): string {
    let said = '';
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
      const m = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message ?? parsed.detail;
      said = typeof m === 'string' ? m : '';
    } catch { /* not JSON: say nothing */ }
    const key = this.options.apiKey;
    if (key) said = said.split(key).join('***');
    return said.replace(/\s+/g, ' ').trim().slice(0, 200);
  }

  private networkMessage(err: unknown, timeoutMs: number): string {
    if (!(err instanceof SafeFetchError)) return `${this.where} cannot be reached: check the URL`;
    if (err.reason === 'timeout') return `${this.where} did not answer within ${timeoutMs / 1000} s; try again later`;
    if (err.reason === 'refused') return `The embeddings URL cannot be used (${err.message}): it should look like https://host/v1 on a public address`;
    if (err.reason === 'network') return `${this.where} cannot be reached (${err.message}): check the URL`;
    return `${this.where} ${err.reason === 'too_large' ? 'answered too much' : 'failed'} (${err.message})`;
  }
}
