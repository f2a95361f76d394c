// Vite builds the dashboard (index.html), the member store pages (store/index.html) and the member shell of the
// modules' member pages (member/index.html) into dist/, served by the service (core/src/http/web.ts). `npm run dev:web` serves them from source on :5173 and passes
// the API (and the plugins' page bundles) through to the service on :8000.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { sharedInputs, sharedModules } from './build/shared-modules.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const api = process.env.QUAD_API_URL ?? 'http://localhost:8000';

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  plugins: [react(), sharedModules()],
  // The repository also holds React 18 (tap's reporter): every import of React resolves to the dashboard's.
  resolve: { dedupe: ['react', 'react-dom'] },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    rolldownOptions: {
      input: { index: here('index.html'), store: here('store/index.html'), member: here('member/index.html'), ...sharedInputs() },
      // The shared modules are entries whose exports plugin bundles import.
      preserveEntrySignatures: 'exports-only',
      // Shared chunks are named by their hash alone (a chunk's first module's name misleads).
      output: { chunkFileNames: 'assets/chunk-[hash].js' },
    },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: { '/api': api, '/dashboard/plugins': api },
  },
});
