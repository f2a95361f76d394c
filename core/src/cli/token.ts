// `quad token …`: an org's machine tokens from the shell, so an agent or app gets its first token without the
// dashboard. Same schema, checks and messages as POST/GET/DELETE /api/organizations/<org>/tokens; audited as `cli`.
// `token create` prints the token alone on stdout: `QUAD_TOKEN=$(quad token create …)`.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CLI_ACTOR, failure, print, reasonOf, tell, type Act } from './output.js';

export function defineTokenCommands(program: Command, act: Act) {
  const token = program.command('token').description('machine tokens of an org for agents and apps: create, list, revoke');

  token.command('create')
    .usage('--org <prefix> --name <name> --kind agent|app --scopes <a,b> [options]')
    .description('make a machine token and print it once (the token alone on stdout; the rest on stderr)')
    .requiredOption('--org <prefix>', 'the org')
    .requiredOption('--name <name>', 'what the token is for (1–100 characters)')
    .addOption(new Option('--kind <kind>', 'who holds it').choices(['agent', 'app']).makeOptionMandatory())
    .requiredOption('--scopes <scopes>', 'scopes it may use, comma-separated, e.g. org:read,points:read')
    .option('--expires-days <days>', 'days until it expires (1–3650); default: never', wholeNumber)
    .action(act(createToken));

  token.command('list')
    .usage('--org <prefix>')
    .description('list the org\'s tokens (never a token or its hash: the first characters tell them apart)')
    .requiredOption('--org <prefix>', 'the org')
    .action(act(listTokens));

  token.command('revoke')
    .usage('--org <prefix> <id>')
    .description('revoke a token; its next use is refused')
    .requiredOption('--org <prefix>', 'the org')
    .argument('<id>', 'the token id (quad token list shows it)', wholeNumber)
    .action(act(revokeToken));
}

function wholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('Not a whole number.');
  return Number(value);
}

interface CreateOptions { org: string; name: string; kind: 'agent' | 'app'; scopes: string; expiresDays?: number }

/** The command line's flag for each field of the route's body, so a refusal names what the operator typed. */
const FLAGS: Record<string, string> = { name: '--name', kind: '--kind', scopes: '--scopes', expires_days: '--expires-days' };

async function createToken(options: CreateOptions): Promise<number> {
  const [{ withDatabase }, { issueToken }, { TokenCreateBody }, { validatorCompiler }, { badRequest }, { recordAudit }] = await Promise.all([
    import('./database.js'), import('../auth/token-admin.js'), import('../auth/routes/org-tokens.js'),
    import('../http/validation.js'), import('../http/errors.js'), import('../events/audit.js'),
  ]);
  const body = {
    name: options.name,
    kind: options.kind,
    scopes: options.scopes.split(',').map((s) => s.trim()).filter(Boolean),
    ...(options.expiresDays !== undefined && { expires_days: options.expiresDays }),
  };
  // The route's body schema, through the route's validator: the same limits and the same messages.
  const validate = validatorCompiler()({ schema: TokenCreateBody, method: 'POST', url: '/api/organizations/:org/tokens', httpPart: 'body' }) as
    ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
  if (!validate(body)) {
    const [first] = validate.errors ?? [];
    const field = first?.instancePath.split('/')[1] ?? '';
    throw badRequest(`${FLAGS[field] ?? field}: ${first?.message ?? 'is invalid'}`, 'validation');
  }
  return withDatabase(async (admin) => {
    const { org, em } = await admin.org(options.org);
    let issued;
    try {
      issued = await issueToken(em, { registry: admin.registry, audit: recordAudit }, org.id, body, { kind: 'officer', actor: CLI_ACTOR });
    } catch (err) {
      if (reasonOf(err) !== 'unknown_scope') throw err;
      return failure(err, `scopes: ${[...admin.registry.scopes.keys()].sort().join(', ')}`);
    }
    const { record } = issued;
    print(issued.token);
    tell(`token ${record.id} "${record.name}" of org ${org.prefix} (${record.kind}; ${record.scopes.join(', ')}; ${record.expiresAt ? `expires ${record.expiresAt.toISOString()}` : 'never expires'}): shown only now, keep it secret`);
    tell(`use it as Authorization: Bearer <token> on the tool server, http://localhost:${admin.settings.TOOL_PORT}/mcp`);
    tell(`see it: quad token list --org ${org.prefix}   revoke it: quad token revoke --org ${org.prefix} ${record.id}`);
    return 0;
  });
}

async function listTokens(options: { org: string }): Promise<number> {
  const [{ withDatabase }, tokenAdmin] = await Promise.all([import('./database.js'), import('../auth/token-admin.js')]);
  return withDatabase(async (admin) => {
    const { org, em } = await admin.org(options.org);
    const tokens = await tokenAdmin.listTokens(em, org.id);
    if (!tokens.length) tell(`no tokens yet: quad token create --org ${org.prefix} --name <name> --kind agent --scopes org:read`);
    for (const t of tokens) {
      const state = t.revoked ? 'revoked' : t.expires_at && Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active';
      print([
        t.id, t.name, t.kind, t.scopes.join(','), `${t.prefix}…`, state,
        `created ${t.created_at} by ${t.created_by}`, `expires ${t.expires_at ?? 'never'}`, `last used ${t.last_used_at ?? 'never'}`,
      ].join('\t'));
    }
    return 0;
  });
}

async function revokeToken(id: number, options: { org: string }): Promise<number> {
  const [{ withDatabase }, tokenAdmin, { recordAudit }] = await Promise.all([
    import('./database.js'), import('../auth/token-admin.js'), import('../events/audit.js'),
  ]);
  return withDatabase(async (admin) => {
    const { org, em } = await admin.org(options.org);
    try {
      await tokenAdmin.revokeToken(em, { audit: recordAudit }, org.id, id, CLI_ACTOR);
    } catch (err) {
      if (reasonOf(err) !== 'unknown_token') throw err;
      return failure(err, `hint: quad token list --org ${org.prefix} shows the org's tokens`);
    }
    print(`revoked token ${id} of org ${org.prefix}`);
    return 0;
  });
}
