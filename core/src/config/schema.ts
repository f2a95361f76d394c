// Every setting Quad reads, with its type and default. The README's settings table mirrors this file.
import { Type, type Static } from '@sinclair/typebox';

const Url = Type.String({ pattern: '^https?://' });

/** How an operator makes a SECRETS_KEY entry; every message about a bad key ends with it. */
export const GENERATE_KEY_HINT = 'generate one with: node -e "console.log(require(\'crypto\').randomBytes(32).toString(\'base64\'))"';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const SettingsSchema = Type.Object({
  NODE_ENV: Type.String({ default: 'development', description: 'development, production or test' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8000, description: 'HTTP port of the API' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'address the API listens on' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL URL; unset starts an embedded PostgreSQL in DATA_DIR/pg' })),
  DATABASE_SERVICE_ROLE: Type.String({
    default: 'quad_service', pattern: '^([a-z_][a-z0-9_]{0,62})?$',
    description: 'the role the service connects as (made by DATABASE_URL\'s role, which must have CREATEROLE): no table of its own, no superuser, no BYPASSRLS, so row-level security holds; empty: the service connects as DATABASE_URL\'s role (refused in production when that is a superuser or BYPASSRLS role)',
  }),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 2, default: 10, description: 'connections the ORM pool may hold' }),
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 54329, description: 'port of the embedded PostgreSQL' }),
  DATA_DIR: Type.String({ default: './data', description: 'folder for local state (embedded database, key pair)' }),
  EMBEDDED_PGVECTOR_SOURCE: Type.Optional(Type.String({ description: 'pgvector source the embedded PostgreSQL builds once when the machine has no pgvector for its version: a .tar.gz URL or a folder; empty: never build. Default: the pgvector 0.8.1 release on GitHub' })),
  DAEMON_RETRY_MS: Type.Integer({ minimum: 100, default: 5000, description: 'how often a worker tries to take over a singleton daemon (e.g. the Discord gateway)' }),
  JOB_SWEEP_MS: Type.Integer({ minimum: 100, default: 15000, description: 'how often a worker looks for jobs locked by a worker process that died; they run again after two looks' }),
  JOB_THREADS: Type.Integer({ minimum: 1, maximum: 64, default: 4, description: 'jobs run at the same time in one process' }),
  MAX_REQUEST_MB: Type.Number({ exclusiveMinimum: 0, default: 110, description: 'largest request body in MB (413 above)' }),
  DASHBOARD_URL: Type.Optional(Url),
  CLIENT_URL: Type.Optional(Url),
  LOG_LEVEL: Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)), { default: 'info' }),
  LOG_FORMAT: Type.Optional(Type.Union([Type.Literal('pretty'), Type.Literal('json')], { description: 'pretty or json; unset: pretty on a terminal with NODE_ENV=development, json otherwise' })),
  RELEASE: Type.Optional(Type.String({ description: 'release name in logs, /health and the error log; default the package version' })),
  PLUGINS: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'plugin packages or paths to load, comma-separated in the environment; replaces the list of config/default.json' }),
  PLUGINS_EXTRA: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'plugins to load besides PLUGINS (without repeating its list), comma-separated in the environment' }),

  // Metrics (README "Metrics"): off until a token is set.
  METRICS_TOKEN: Type.Optional(Type.String({
    pattern: '^\\S{16,}$', errorMessage: 'must be at least 16 characters, without spaces',
    hint: 'generate one with: node -e "console.log(require(\'crypto\').randomBytes(32).toString(\'base64url\'))"',
    description: 'bearer token a Prometheus server sends to GET /metrics; unset: /metrics answers 404 and no metrics are exposed',
  })),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'a metrics-only listener on this port (GET /metrics, same token), in any role: how worker processes are scraped; needs METRICS_TOKEN; unset: none' })),

  TOOL_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8001, description: 'port of the MCP tool server (path /mcp)' }),
  TOOL_ALLOWED_HOSTS: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'Host headers the MCP server accepts (DNS-rebinding protection), comma-separated; default localhost, 127.0.0.1 and [::1] on TOOL_PORT' }),

  ALLOWED_PRIVATE_ADDRESSES: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description: 'private hosts and ranges the safe fetcher may reach for user-given URLs (a club\'s intranet wiki, a self-hosted search or rendering service), comma-separated: addresses, CIDR ranges (10.20.0.0/16) or exact host names (wiki.club.internal, which may then resolve to private addresses); loopback, link-local, multicast and reserved ranges are refused. Empty: only public addresses. Every org\'s URLs reach what is listed: README "Outbound requests"',
  }),

  // Sign-in and access (spec document 1, "Authentication")
  SECRET_KEY: Type.Optional(Type.String({ minLength: 32, description: 'keys the encryption of session cookies (at least 32 characters; a new one ends every session); unset: a random key kept in DATA_DIR/secret_key' })),
  CLIENT_ID: Type.Optional(Type.String({ minLength: 1, description: 'Discord OAuth application id' })),
  CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, description: 'Discord OAuth application secret' })),
  REDIRECT_URI: Type.Optional(Type.String({ pattern: '^https?://', description: 'officer OAuth callback, {base_url}/api/auth/callback' })),
  BOT_TOKEN: Type.Optional(Type.String({ minLength: 1, description: 'Discord bot credential: roles, members, messages' })),
  DISCORD_API_URL: Type.String({ pattern: '^https?://', default: 'https://discord.com/api/v10' }),
  DISCORD_AUTHORIZE_URL: Type.String({ pattern: '^https?://', default: 'https://discord.com/oauth2/authorize' }),
  READY_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({ minimum: 0, default: 1000, description: 'GET /health/ready answers 503 under_pressure while the event loop lags more than this on average (ms); 0: never' }),
  DISCORD_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'timeout of each Discord call' }),
  SYS_ADMIN: Type.Array(Type.String({ pattern: '^\\d+$' }), { default: [], description: 'chat user ids of the superadmins, comma-separated' }),
  ACCESS_ENFORCE: Type.Boolean({ default: false, description: 'refuse (true) or only log (false) access decisions that would deny' }),
  IDP_API_URL: Type.String({ pattern: '^https?://', default: 'https://api.clerk.com/v1' }),
  IDP_SECRET_KEY: Type.Optional(Type.String({ minLength: 1, description: 'identity provider secret key (JWKS and user lookups)' })),
  SECRETS_KEY: Type.Array(Type.String({ pattern: '^[A-Za-z0-9+/=_-]{43,88}$', errorMessage: 'must be 32 random bytes in base64', hint: GENERATE_KEY_HINT }), { default: [], description: 'keys (32 bytes, base64) that encrypt org secrets, newest first, comma-separated; the first encrypts, all decrypt' }),
  IDP_AUTHORIZED_PARTIES: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'origins allowed in the identity-provider token azp, comma-separated' }),
  IDP_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'timeout of each identity-provider call (signing keys, user lookups)' }),

  // Outbound webhooks and the dashboard (spec document 1, "Events", "Dashboard routes")
  DISCORD_WEBHOOK_URL_BASE: Type.String({
    pattern: '^https?://[^/?#@]+/([^?#]*/)?$', default: 'https://discord.com/api/webhooks/',
    description: 'the only place outbound webhooks may post to: <base><id>/<token>; the default also allows discordapp.com and /api/v<n>/webhooks/ (tests point it at a fake)',
  }),
  GITHUB_API_URL: Type.String({ pattern: '^https?://', default: 'https://api.github.com', description: 'GitHub REST base (dashboard CI runs)' }),
  GITHUB_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'timeout of each GitHub call' }),

  // Remote tools (the tool server forwards calls to an integration's own MCP server; README "Tool server")
  GITHUB_MCP_URL: Type.String({ pattern: '^https?://', default: 'https://api.githubcopilot.com/mcp/', description: 'GitHub\'s MCP server (Streamable HTTP), whose tools the github integration serves as github.<tool>' }),
  REMOTE_MCP_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 15000, description: 'deadline of each exchange with a remote MCP server (listing its tools, or one call), handshake included' }),
});

export type Settings = Static<typeof SettingsSchema>;
