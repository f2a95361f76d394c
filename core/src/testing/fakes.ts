// Fakes of the external services (Discord, the identity provider, GitHub, an embeddings service) for plugin tests. Their code stays in
// test/fakes/ (the project's rule); this file only makes them importable as @quad/core/testing.
export * from '../../../test/fakes/discord/index.js';
export * from '../../../test/fakes/idp/index.js';
export * from '../../../test/fakes/github/index.js';
export * from '../../../test/fakes/embeddings.js';
export * from '../../../test/fakes/hostprov/index.js';
export * from '../../../test/fakes/pod-ssh/index.js';
export * from '../../../test/fakes/outside.js';
export * from '../../../test/fakes/website.js';
export * from '../../../test/fakes/dns.js';
export * from '../../../test/fakes/ssrf.js';
export * from '../../../test/fakes/hackathons.js';
export * from '../../../test/fakes/repo-files.js';
export * from '../../../test/fakes/campus-sites.js';
export * from '../../../test/fakes/search.js';
export * from '../../../test/fakes/remote-mcp.js';
export * from '../../../test/fakes/leetcode.js';
export * from '../../../test/fakes/monitored-site.js';
