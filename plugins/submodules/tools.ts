// The submodules tools (spec "Submodules"), for machine tokens over MCP and /api/tools; the core checks the scope,
// binds the token's org and hides them while the module is off for it. Subscribing and ending need confirm.
// submodules.query takes the knowledge module's scope knowledge:read (the spec's); without that module it is not
// offered (the module's optional need). knowledge.submodules and knowledge.sync_submodule are the spec's older names
// of list and subscribe, claimed outside the namespace.
import { Type, defineTool } from '@quad/core';
import { catalogOf } from './catalog.js';
import { catalogFor } from './records.js';
import { findSubmodule, runQuery } from './queries/run.js';
import { CatalogOut, QueryBody, QueryOut, SubscribedOut, UnsubscribedOut } from './schemas.js';
import { subscribe, subscriptionsOf, unsubscribe } from './subscriptions.js';

const SubmoduleInput = Type.Object({
  submodule: Type.String({ minLength: 1, maxLength: 100, description: 'the submodule name, e.g. campus (submodules.list lists them)' }),
}, { additionalProperties: false });

export const listTool = defineTool({
  name: 'submodules.list',
  title: 'List submodules',
  description: 'Lists the submodules the deployment offers (shared domains such as a university or careers) with what each brings — '
    + 'shared pages in the org\'s knowledge search, live queries, feed presets, links — whether the org subscribes and how many orgs do. '
    + 'Use it to find a submodule or the name and parameters of a live query. Example: {}',
  scope: 'submodules:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: CatalogOut,
  annotations: { readOnly: true, idempotent: true },
  handler: ({ db, org, services }) => catalogFor(db, services, org),
});

export const subscribeTool = defineTool({
  name: 'submodules.subscribe',
  title: 'Subscribe to a submodule',
  description: 'Subscribes the org to a submodule: its shared pages join the org\'s knowledge search and its feed presets are offered by the '
    + 'feeds module. Subscribing again brings the shared pages up to date. Needs confirm: the first call answers what it would do. '
    + 'Example: {"submodule": "campus", "confirm": true}',
  scope: 'submodules:manage',
  input: SubmoduleInput,
  output: SubscribedOut,
  annotations: { idempotent: true },
  confirm: true,
  async preview({ db, services }, input) {
    const s = findSubmodule(await catalogOf(services), input.submodule);
    const again = (await subscriptionsOf(db)).has(s.name);
    return { action: again ? 'subscribe again (refresh the shared pages)' : 'subscribe', submodule: s.name, shared_pages: s.pages.length, feed_presets: s.feeds.length };
  },
  async handler({ db, services, caller }, input) {
    const s = findSubmodule(await catalogOf(services), input.submodule);
    const done = await subscribe(db, services, s, caller.actor);
    return { submodule: s.name, subscribed: true as const, subscribed_at: done.subscribed_at.toISOString(), shared_pages: done.shared_pages };
  },
});

export const unsubscribeTool = defineTool({
  name: 'submodules.unsubscribe',
  title: 'End a submodule subscription',
  description: 'Ends the org\'s subscription to a submodule: its shared pages leave the org\'s knowledge search and its presets are no longer offered; '
    + 'feeds the org already made keep running. Needs confirm. Example: {"submodule": "careers", "confirm": true}',
  scope: 'submodules:manage',
  input: SubmoduleInput,
  output: UnsubscribedOut,
  annotations: { destructive: true, idempotent: true },
  confirm: true,
  async preview({ db }, input) {
    return { action: 'end the subscription', submodule: input.submodule, subscribed: (await subscriptionsOf(db)).has(input.submodule) };
  },
  async handler({ db, services, caller }, input) {
    await unsubscribe(db, services, input.submodule, caller.actor);
    return { submodule: input.submodule, subscribed: false as const };
  },
});

export const queryTool = defineTool({
  name: 'submodules.query',
  title: 'Ask a submodule a live question',
  description: 'Runs one live query of a submodule and answers its text: for example library hours, campus events, dining menus, shuttle '
    + 'schedules, or a web search. source is the query name and params its parameters (submodules.list shows both with the accepted values; '
    + 'a bad parameter answers 422 with them). Example: {"submodule": "campus", "source": "library_hours", "params": {"branch": "science"}}',
  scope: 'knowledge:read',
  input: Type.Object({ submodule: SubmoduleInput.properties.submodule, ...QueryBody.properties }, { additionalProperties: false }),
  output: QueryOut,
  // Not read-only: an answer is added to the org's knowledge (submodules.index_result).
  annotations: { readOnly: false },
  async handler({ em, org, services }, input) {
    return runQuery({ em, services, org }, await catalogOf(services), input.submodule, input.source, input.params);
  },
});

/** The spec's older names: the same tool under another name (and title). */
const alias = <T extends { name: string; title?: string }>(tool: T, name: string): T => ({ ...tool, name, title: `${tool.title} (older name of ${tool.name})` });

export const ALIAS_TOOLS = ['knowledge.submodules', 'knowledge.sync_submodule'];

export const submodulesTools = [
  listTool, subscribeTool, unsubscribeTool, queryTool,
  alias(listTool, ALIAS_TOOLS[0]!), alias(subscribeTool, ALIAS_TOOLS[1]!),
];
