// quad-plugin-hello: the template a third party copies. One manifest declares everything the core needs
// to mount, document, gate and run the module; nothing here touches another module's internals.
import { defineJob, defineModule, defineTool, Type } from '@quad/core';
import { Greeting, Tally } from './entities.js';
import { helloRoutes } from './routes.js';

export const tallyJob = defineJob({
  name: 'hello.tally',
  description: 'Counts the org\'s greetings into hello_tallies.',
  payload: Type.Object({}, { additionalProperties: false }),
  once: 'org',
  maxAttempts: 3,
  async handler({ em, org }) {
    // Idempotent: recomputes the whole tally, so a retried run writes the same row.
    const greetings = await em.count(Greeting, {});
    await em.upsert(Tally, { organization: org!.id, greetings, countedAt: new Date() });
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
    return { message: `${services.moduleSettings<{ HELLO_GREETING: string }>('hello').HELLO_GREETING}, ${name}!` };
  },
});

export default defineModule({
  name: 'hello',
  title: 'Hello',
  description: 'An example module: greetings, a tally job and a greeting tool.',
  category: 'Examples',
  scopes: [
    { name: 'hello:read', description: 'Read greetings and call hello.greet' },
    { name: 'hello:write', description: 'Leave greetings and start a tally' },
  ],
  limits: [
    { key: 'hello.greetings_per_day', kind: 'rate', window: 'day', default: 1000, description: 'Greetings an org may leave a day' },
  ],
  entities: [Greeting, Tally],
  migrations: new URL('./migrations/', import.meta.url),
  routes: helloRoutes,
  tools: [greetTool],
  jobs: [tallyJob],
  events: ['hello.greeted'],
  settings: Type.Object({
    HELLO_GREETING: Type.String({ minLength: 1, default: 'Hello', description: 'The word greetings start with' }),
  }),
});
