// @quad/core/testing: what a plugin's tests need, from one entry point. Plugin tests import nothing else of the
// core (test/plugin-api/import-graph.test.ts checks it).
//   const quad = await startTestApp(t, { plugins: ['./examples/hello-plugin'] });
export {
  startTestApp, captureLogs, type TestApp, type TestAppOptions, type TeardownHost, type OrgFields,
} from './test-app.js';
export { createTestDatabase, ADMIN_URL, databaseUrl } from './database.js';
export * from './fakes.js';
export * from './sign-in.js';
export * from './member-world.js';
export { roomInMinute } from './windows.js';
export { until } from './until.js';
export { allowAddressesForTests } from '../net/address-policy.js';
export { resolveWithDnsServerForTests } from '../net/safe-fetch.js';
/**
 * `.ts` when tests run the TypeScript sources (`npx tap file.ts`, through tsx), `.js` in the suite's compiled tree
 * (`npm test`, test/support/compiled-tree.mjs): the extension of a module a test loads by path at run time.
 */
export const CODE_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
export { withoutTapLoader } from './without-tap-loader.js';
