// quad-plugin-hello: the template a third party copies. One manifest declares everything the core needs
// to mount, document, gate and run the module; nothing here touches another module's internals.
import { defineJob, defineModule, defineTool, provide, Type } from '@quad/core';
import { Greeting, Tally } from './entities.js';
import { helloGreeter, makeGreeter } from './greeter.js';

export { helloGreeter, type Greeter } from './greeter.js';

export const tallyJob = defineJob({
  name: 'hello.tally',
  description: 'Counts the org\'s greetings into hello_tallies.',
  payload: Type.Object({}, { additionalProperties: false }),
  once: 'org',
  maxAttempts: 3,
  async handler({ db }) {
    // The SQL path, beside the ORM's in routes/: the org-bound handle `db` runs in the run's org (README "Org
    // isolation"); values are bound parameters and the org is `db.org`. Idempotent: it recomputes the whole
    // tally, so a retried run writes the same row.
    await db.run`
      insert into hello_tallies (organization_id, greetings, counted_at)
      select ${db.org}, count(*), now() from hello_greetings where ${db.inOrg()}
      on conflict (organization_id) do update set greetings = excluded.greetings, counted_at = excluded.counted_at`;
  },
});

export const greetTool = defineTool({
  name: 'hello.greet',
  title: 'Greet someone',
  description: 'Returns the org\'s greeting for a name. Use it to say hello on the org\'s behalf. Example: {"name": "Ada"} -> "Hello, Ada!"',
  scope: 'hello:read',
  input: Type.Object({ name: Type.String({ minLength: 1, maxLength: 80 }) }),
  output: Type.Object({ message: Type.String() }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ services }, { name }) {
    return { message: services.service(helloGreeter).greet(name) };
  },
});

export default defineModule({
  name: 'hello',
  title: 'Hello',
  description: 'An example module: greetings, a tally job and a greeting tool.',
  category: 'Examples',
  // The @quad/core versions this plugin was built for; boot refuses it on another.
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'hello:read', description: 'Read greetings and call hello.greet' },
    { name: 'hello:write', description: 'Leave greetings and start a tally' },
  ],
  limits: [
    { key: 'hello.greetings_per_day', kind: 'rate', window: 'day', default: 1000, description: 'Greetings an org may leave a day' },
  ],
  tables: { hello_greetings: 'org', hello_tallies: 'org' },
  entities: [Greeting, Tally],
  migrations: new URL('./migrations/', import.meta.url),
  // Every file of routes/ default-exports a route plugin; the core mounts them with @fastify/autoload.
  routes: new URL('./routes/', import.meta.url),
  // What other modules may use: services.service(ref) with a ref of the same id.
  provides: [provide(helloGreeter, makeGreeter)],
  tools: [greetTool],
  jobs: [tallyJob],
  events: ['hello.greeted'],
  // Its dashboard page and Overview card: web/index.tsx, built to web/dist/ (README "Write a plugin", Pages).
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'hello', title: 'Greetings', icon: 'smile', component: 'GreetingsPage' }],
    overviewCard: 'GreetingsCard',
  },
  settings: Type.Object({
    HELLO_GREETING: Type.String({ minLength: 1, default: 'Hello', description: 'The word greetings start with' }),
  }),
});
