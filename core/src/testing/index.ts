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
export { CODE_EXT, moduleCommand, nodeCommand } from './commands.js';
export { allowAddressesForTests } from '../net/address-policy.js';
export { resolveWithDnsServerForTests } from '../net/safe-fetch.js';
