// The secrets core module: an org's encrypted secrets and the integrations they connect.
import { defineModule } from '../modules/define.js';

export const secretsModule = defineModule({
  name: 'secrets',
  title: 'Secrets',
  description: 'Encrypted org secrets and connected integrations.',
  category: 'Core',
  core: true,
});
