// The module's deployment settings (operator's, not an org's): where LeetCode's GraphQL API lives and how long a call
// may take. Tests point the base URL at the fake (test/fakes/leetcode.ts).
import { Type, type CoreServices, type Static } from '@quad/core';

export const LeetCodeSettings = Type.Object({
  LEETCODE_API_URL: Type.String({ default: 'https://leetcode.com', pattern: '^https?://', description: 'base URL of LeetCode; the GraphQL API is POST <base>/graphql' }),
  LEETCODE_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 60_000, description: 'deadline of one LeetCode call, in ms' }),
});
export type LeetCodeSettings = Static<typeof LeetCodeSettings>;

export const settingsOf = (services: CoreServices) => services.moduleSettings<LeetCodeSettings>('leetcode');
