// Integrations as officers connect them (Explore → Integrations): every declared integration with its fields (the
// org secrets that connect it), the values of its readable fields, whether it is connected and which modules need
// it; saving and clearing several fields in one transaction, followed by the integration's onChange in that
// transaction; and its connection test, whose answer is a message for the officer, never a stack, never a secret.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreServices, ModuleRegistry } from '../core-services.js';
import type { IntegrationDecl } from '../modules/types.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import { badRequest, conflict, knownError, notFound } from '../http/errors.js';
import { isConnected, MAX_SECRET_LENGTH } from './store.js';

export type DeclaredIntegration = IntegrationDecl & { module: string };

/** How long a connection test may take, its requests included. */
export const TEST_DEADLINE_MS = 20_000;
/** Longest message of a test shown to an officer. */
const MESSAGE_MAX_CHARS = 500;

export interface FieldView {
  name: string; label: string; optional: boolean; readable: boolean; set: boolean;
  /** Only for a readable field that is set. */
  value?: string;
}

export interface IntegrationView {
  key: string; title: string; description: string; module: string; connected: boolean; remote: boolean;
  testable: boolean; fields: FieldView[]; used_by: string[];
}

/** The integration, or 404 `unknown_integration`. */
export function integrationOf(registry: ModuleRegistry, key: string): DeclaredIntegration {
  const integration = registry.integrations.get(key);
  if (!integration) throw notFound(`No loaded module declares the integration "${key}"`, 'unknown_integration');
  return integration;
}

/**
 * Every integration (or the one named) as the org sees it. Readable values are read only when SECRETS_KEY is set;
 * one that no longer decrypts is shown set, without its value.
 */
export async function integrationViews(services: CoreServices, em: EntityManager, orgId: number, only?: string): Promise<IntegrationView[]> {
  const { registry, secrets } = services;
  const chosen = [...registry.integrations.values()].filter((i) => only === undefined || i.key === only);
  const set = await secrets.names(em, orgId);
  const readable = chosen.flatMap((i) => i.secrets.filter((s) => s.readable && set.has(s.name)).map((s) => s.name));
  let values = new Map<string, string>();
  if (readable.length && secrets.configured) {
    // One read; when a value does not decrypt (its key was removed), each alone, so only that one is left out.
    values = await secrets.values(em, orgId, readable).catch(async () => new Map(
      (await Promise.all(readable.map(async (name) => [name, await secrets.get(em, orgId, name).catch(() => null)] as const)))
        .filter((e): e is readonly [string, string] => e[1] !== null)));
  }
  return chosen.map((i) => ({
    key: i.key, title: i.title, description: i.description, module: i.module,
    connected: isConnected(i, set), remote: i.remote ?? false, testable: typeof i.test === 'function',
    fields: i.secrets.map((s) => {
      const value = s.readable ? values.get(s.name) : undefined;
      return {
        name: s.name, label: s.label, optional: s.optional ?? false, readable: s.readable ?? false, set: set.has(s.name),
        ...(value !== undefined && { value }),
      };
    }),
    used_by: registry.modules.filter((m) => m.needs.some((n) => n.kind === 'integration' && n.key === i.key)).map((m) => m.name),
  }));
}

/**
 * The body of a save checked against the integration: `{ <field>: value | null }`, at least one, every name a field
 * of it, every value a non-blank string (trimmed) of at most 8192 characters, or null to clear it.
 */
export function checkFields(integration: DeclaredIntegration, fields: Record<string, unknown>): { set: [string, string][]; clear: string[] } {
  const names = Object.keys(fields);
  if (!names.length) throw badRequest('body.fields: name at least one field', 'validation', { field: 'body.fields' });
  const known = new Set(integration.secrets.map((s) => s.name));
  const set: [string, string][] = [];
  const clear: string[] = [];
  for (const name of names) {
    const field = `body.fields.${name}`;
    if (!known.has(name)) {
      throw badRequest(`${field}: not a field of ${integration.key} (its fields: ${[...known].join(', ')})`, 'unknown_field', { field });
    }
    const value = fields[name];
    if (value === null) { clear.push(name); continue; }
    if (typeof value !== 'string') throw badRequest(`${field}: must be a string, or null to clear it`, 'validation', { field });
    const trimmed = value.trim();
    if (!trimmed) throw badRequest(`${field}: must not be empty or blank (null clears it)`, 'validation', { field });
    if (trimmed.length > MAX_SECRET_LENGTH) throw badRequest(`${field}: must have at most ${MAX_SECRET_LENGTH} characters`, 'validation', { field });
    set.push([name, trimmed]);
  }
  return { set, clear };
}

/**
 * After the org saved or cleared fields of the integration, in that write's transaction: its onChange, while its
 * module is on for the org (like event handlers). Whatever it throws rolls the write back.
 */
export async function integrationChanged(services: CoreServices, em: EntityManager, org: OrgSnapshot, integration: DeclaredIntegration): Promise<void> {
  if (!integration.onChange || !services.registry.isEnabled(org.modules, integration.module)) return;
  // Without SECRETS_KEY nothing can be set (a clear still is a change).
  const values = services.secrets.configured
    ? await services.secrets.values(em, org.id, integration.secrets.map((s) => s.name)) : new Map<string, string>();
  await integration.onChange({ em, orgId: org.id, services, values: Object.freeze(Object.fromEntries(values)) });
}

export interface TestOutcome { ok: boolean; message: string }

/**
 * Run the integration's connection test with the org's values. 400 `not_testable` when it declares none, 409
 * `not_connected` while a required field is not set. A failure is `{ ok: false, message }` with the test's own
 * words (minus any secret value); a bug in the test is logged to the error log and answered without its message.
 */
export async function testIntegration(
  services: CoreServices, em: EntityManager, org: OrgSnapshot, integration: DeclaredIntegration, where: { requestId: string; origin: string },
): Promise<TestOutcome> {
  const test = integration.test;
  if (!test) throw badRequest(`${integration.title} has no connection test`, 'not_testable');
  const set = await services.secrets.names(em, org.id);
  const missing = integration.secrets.filter((s) => !s.optional && !set.has(s.name));
  if (missing.length) {
    throw conflict(`Connect ${integration.title} first: ${missing.map((s) => s.label).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`, 'not_connected', {
      missing: missing.map((s) => s.name),
    });
  }
  const values = await services.secrets.values(em, org.id, integration.secrets.map((s) => s.name));
  const hidden = integration.secrets.filter((s) => !s.readable).map((s) => values.get(s.name)).filter((v): v is string => !!v && v.length >= 4);
  const scrub = (text: string) => {
    let out = hidden.reduce((acc, v) => acc.split(v).join('***'), text).replace(/\s+/g, ' ').trim();
    if (out.length > MESSAGE_MAX_CHARS) out = `${out.slice(0, MESSAGE_MAX_CHARS - 1)}…`;
    return out;
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TestTimedOut()), TEST_DEADLINE_MS);
  });
  try {
    const message = await Promise.race([test({ em, orgId: org.id, services, values: Object.freeze(Object.fromEntries(values)) }), deadline]);
    return { ok: true, message: scrub(typeof message === 'string' && message.trim() ? message : `${integration.title} answered`) };
  } catch (err) {
    if (err instanceof TestTimedOut) return { ok: false, message: `The test of ${integration.title} did not finish within ${TEST_DEADLINE_MS / 1000} s; try again later` };
    const said = officerMessage(err);
    if (said !== null) return { ok: false, message: scrub(said) };
    await services.logError({
      orgId: org.id, source: 'request', origin: where.origin, requestId: where.requestId, error: err,
      logLine: `the connection test of ${integration.key} failed unexpectedly`,
    });
    return { ok: false, message: `The test of ${integration.title} failed unexpectedly; the error log has the details (request ${where.requestId})` };
  } finally {
    clearTimeout(timer);
  }
}

class TestTimedOut extends Error {}

/** JavaScript's own errors are bugs, as are the database's (their messages may hold SQL or addresses). */
const BUG_NAMES = new Set(['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError', 'EvalError', 'URIError', 'AggregateError', 'DatabaseError']);

/** What an officer may read of a test's failure: what it threw on purpose, or a known outage; null for a bug. */
function officerMessage(err: unknown): string | null {
  const known = knownError(err);
  if (known) return known.message;
  if (!(err instanceof Error) || !err.message) return null;
  const code = (err as { code?: unknown }).code;
  if (BUG_NAMES.has(err.name) || /Exception$/.test(err.name) || 'sqlState' in err || (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))) return null;
  return err.message;
}
