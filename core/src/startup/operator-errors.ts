// Start-up failures an operator can fix, as one line each that names the fix: a database that does not exist or
// cannot be reached, a port in use, bad settings. Anything else is a bug and keeps its stack.
import { ConfigError } from '../config/load.js';
import { ManifestError } from '../modules/registry.js';
import { EmbeddedPostgresError } from '../db/embedded.js';

export interface StartContext {
  /** The database Quad was connecting to (its password is never shown). */
  databaseUrl?: string;
  /** Ports by the setting that chose them, to name the setting to change. */
  ports?: Record<string, number>;
}

/** The operator's message for a failed start, or null when the error is not theirs to fix. */
export function operatorMessage(err: unknown, context: StartContext = {}): string | null {
  if (err instanceof ConfigError || err instanceof ManifestError || err instanceof EmbeddedPostgresError) return err.message;
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  const db = describeDatabase(context.databaseUrl);
  const unset = 'or unset DATABASE_URL to use the embedded database';
  switch (code) {
    case '3D000':
      return `PostgreSQL at ${db.server} has no database "${db.name}": create it (createdb -h ${db.host} -p ${db.port} -U ${db.user} ${db.name}) or fix DATABASE_URL`;
    case 'ECONNREFUSED':
      return `Cannot connect to PostgreSQL at ${db.server} (connection refused): start it, fix the host and port in DATABASE_URL, ${unset}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot resolve the PostgreSQL host "${db.host}": fix DATABASE_URL, ${unset}`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${db.server} refused user "${db.user}" (${err.message}): fix the user and password in DATABASE_URL`;
    case 'EADDRINUSE':
    case 'EACCES': {
      const { port, address } = err as { port?: number; address?: string };
      if (port === undefined) return null;
      const setting = Object.entries(context.ports ?? {}).find(([, p]) => p === port)?.[0] ?? 'PORT';
      const why = code === 'EADDRINUSE' ? 'is already in use (another Quad?)' : 'needs privileges this user lacks';
      return `Port ${port} on ${address ?? 'this host'} ${why}: stop whatever listens there, or set ${setting} to another port`;
    }
    default:
      return null;
  }
}

interface DatabaseParts { server: string; host: string; port: string; user: string; name: string }

function describeDatabase(url: string | undefined): DatabaseParts {
  try {
    const u = new URL(url ?? '');
    const host = decodeURIComponent(u.hostname) || 'localhost';
    const port = u.port || '5432';
    return { server: `${host}:${port}`, host, port, user: decodeURIComponent(u.username) || 'postgres', name: decodeURIComponent(u.pathname.slice(1)) || 'postgres' };
  } catch {
    return { server: 'DATABASE_URL', host: 'localhost', port: '5432', user: 'postgres', name: 'quad' };
  }
}
