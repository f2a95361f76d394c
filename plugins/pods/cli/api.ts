// The member pod routes the CLI calls, with its token; Quad's JSON errors become one clear line each.
import type { CliConfig } from './config.js';

export interface MemberPod { pod_id: string; name: string; kind: 'gpu' | 'cpu'; gpu_type_id: string | null; gpu_count: number | null; cpu_flavor: string | null; vcpu_count: number | null; status: string; access: string }
export interface Connection {
  pod_id: string; host: string; port: number; user: string; username: string; user_folder: string; is_admin: boolean; certificate: string; valid_before: string;
  /** The org's host CA, and the name the pod's host certificate is for (absent from a Quad older than issue 38). */
  host_ca?: string; host_key_alias?: string;
}

/** A refusal the member can act on; the CLI prints its message and exits 1. */
export class CliError extends Error {}

/** What to tell the member for Quad's answer, by its reason (or status). */
function explain(cli: string, status: number, body: { error?: string; reason?: string }): string {
  switch (body.reason) {
    case 'token_expired': return `Your sign-in has expired: run \`${cli} login\` again.`;
    case 'token_revoked': return `This sign-in was replaced or revoked: run \`${cli} login\` again.`;
    case 'token_invalid': case 'invalid_token': return `The saved token is not valid: run \`${cli} login\` again.`;
    case 'not_member': return 'You are not a member of the org\'s Discord server.';
    case 'no_pod_access': return 'You have no access to this pod: ask an officer of the org to add you.';
    case 'pod_not_running': return `${body.error ?? 'The pod is not running'}.`;
    case 'host_key_unknown': return `${body.error ?? 'The pod\'s host key is unknown: ask an officer to recreate the pod'}.`;
    case 'module_off': return 'Pods are not switched on for this org.';
    default: break;
  }
  if (status === 401) return `Not signed in: run \`${cli} login\`.`;
  return body.error ?? `The server answered ${status}.`;
}

export async function callQuad<T>(cli: string, config: CliConfig, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  if (!config.token) throw new CliError(`Not signed in: run \`${cli} login\`.`);
  let res: Response;
  try {
    res = await fetch(new URL(`/api/compute/${encodeURIComponent(config.org)}${path}`, config.server), {
      method,
      headers: { authorization: `Bearer ${config.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new CliError(`Cannot reach ${config.server}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: a proxy's page, say; the status tells.
  }
  if (!res.ok) throw new CliError(explain(cli, res.status, (json ?? {}) as { error?: string; reason?: string }));
  return json as T;
}
