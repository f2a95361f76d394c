// Build the dashboard, the store pages and the member shell with Vite (vite.config.ts) into core/web/dist.
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

export const WEB_ROOT = fileURLToPath(new URL('../', import.meta.url));

export async function buildDashboard() {
  await build({ configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)), logLevel: 'warn' });
}
