// The service `hello.greeter`: what this module offers other modules. A module that wants greetings declares its
// own ref with the same id and the methods it calls (see test/hello.test.ts), and never imports this package.
import { defineService, type CoreServices } from '@quad/core';

export interface Greeter {
  /** The org's greeting for a name, in the words of HELLO_GREETING: `Hello, Ada!`. */
  greet(name: string): string;
}

export const helloGreeter = defineService<Greeter>({ id: 'hello.greeter', methods: ['greet'], description: 'Greetings in the deployment\'s words' });

/** Built once at boot, with the core's services (to read this module's settings). */
export function makeGreeter(services: CoreServices): Greeter {
  const word = services.moduleSettings<{ HELLO_GREETING: string }>('hello').HELLO_GREETING;
  return { greet: (name) => `${word}, ${name}!` };
}
