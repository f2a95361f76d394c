// The agents module's pages, built into web/dist/index.js: AgentsPage, the officers' page at /dashboard/agents
// (agents-page.tsx), and MyAgentDataPage, the member's own page at /agents/<org>/me in the core's member shell
// (my-data.tsx). React, @tanstack/react-query and @quad/web/sdk are the host page's own (its import map).
export { AgentsPage } from './agents-page.js';
export { MyAgentDataPage } from './my-data.js';
