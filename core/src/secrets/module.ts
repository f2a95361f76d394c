// The secrets core module: an org's encrypted secrets and the integrations they connect.
import { defineJob, defineModule } from '../modules/define.js';
import { secretRoutes } from './routes.js';

/** Re-encrypt every org's secrets with the first SECRETS_KEY (run after putting a new key first). */
export const rotateJob = defineJob({
  name: 'secrets.rotate',
  description: 'Re-encrypts every org secret that is not on the first SECRETS_KEY with it; idempotent.',
  once: () => 'all',
  maxAttempts: 1,
  async handler({ services, log }) {
    const { rotated, current } = await services.acrossOrgs('secrets.rotate', (all) => services.secrets.rotate(all));
    log.info(`secrets.rotate: re-encrypted ${rotated} secret(s) with key ${services.secrets.currentKeyId}; ${current} already on it`);
  },
});

export const secretsModule = defineModule({
  name: 'secrets',
  title: 'Secrets',
  description: 'Encrypted org secrets and connected integrations.',
  category: 'Core',
  core: true,
  jobs: [rotateJob],
  routes: secretRoutes,
});
