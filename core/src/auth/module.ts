// The core modules of sign-in: `auth` (officer and member sign-in, app tokens, whoami, housekeeping) and
// `tokens` (an org's machine tokens and the tokens:manage scope). Both always on.
import { defineJob, defineModule } from '../modules/define.js';
import { authEntities } from './entities.js';
import { appTokenRoutes } from './routes/app-tokens.js';
import { memberSignInRoutes } from './routes/member-sign-in.js';
import { meRoutes } from './routes/me.js';
import { officerSignInRoutes } from './routes/officer-sign-in.js';
import { orgTokenRoutes } from './routes/org-tokens.js';
import { tokensCreate, tokensList, tokensRevoke } from '../tools/core-tools.js';

const pruneJob = defineJob({
  name: 'auth.prune',
  description: 'Deletes expired sign-in codes, refresh tokens and revocations of tokens that have expired anyway.',
  cron: '17 3 * * *',
  async handler({ em }) {
    await em.execute('delete from sign_in_codes where expires_at < now()');
    await em.execute('delete from refresh_tokens where expires_at < now()');
    await em.execute('delete from revoked_tokens where expires_at < now()');
  },
});

export const authModule = defineModule({
  name: 'auth',
  title: 'Sign-in',
  description: 'Officer sign-in with Discord, member sessions, identity-provider sign-in, legacy app tokens.',
  category: 'Core',
  core: true,
  tables: { users: 'global', machine_tokens: 'org', app_tokens: 'global' },
  entities: authEntities,
  jobs: [pruneJob],
  routes: async (app) => {
    await app.register(officerSignInRoutes);
    await app.register(appTokenRoutes);
    await app.register(meRoutes);
    await app.register(memberSignInRoutes);
  },
});

export const tokensModule = defineModule({
  name: 'tokens',
  title: 'Tokens',
  description: 'Machine tokens for apps, agents and CLIs, scoped to one org.',
  category: 'Core',
  core: true,
  scopes: [{ name: 'tokens:manage', description: 'Create, list and revoke the org\'s machine tokens (a new token gets at most this token\'s scopes and limits)' }],
  routes: orgTokenRoutes,
  tools: [tokensList, tokensCreate, tokensRevoke],
});
