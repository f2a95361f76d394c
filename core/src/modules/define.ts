// defineModule / defineTool / defineJob / defineService: data-first declarations. Nothing here runs a module; the
// registry validates.
import type { TSchema } from '@sinclair/typebox';
import type { CoreServices, ServiceProvision, ServiceRef } from '../core-services.js';
import type { JobDecl, Module, ModuleManifest, ToolDecl } from './types.js';

/** Fill a manifest's defaults and freeze it, so it can be listed and validated without starting anything. */
export function defineModule(manifest: ModuleManifest): Module {
  return Object.freeze({
    core: false,
    defaultEnabled: false,
    needs: [],
    scopes: [],
    limits: [],
    entities: [],
    tables: {},
    tools: [],
    jobs: [],
    events: [],
    databaseExtensions: [],
    integrations: [],
    secrets: [],
    daemons: [],
    eventHandlers: [],
    provides: [],
    consumes: [],
    ...manifest,
  }) as Module;
}

/** Declare a tool; the generic keeps the handler's input typed from its schema. */
export function defineTool<I extends TSchema>(tool: ToolDecl<I>): ToolDecl<I> {
  return Object.freeze(tool);
}

/** Declare a job; the generic keeps the handler's payload typed from its schema. */
export function defineJob<P extends TSchema>(job: JobDecl<P>): JobDecl<P> {
  return Object.freeze(job);
}

/**
 * A typed reference to a service between modules. The provider lists every method it offers; a module that uses
 * the service may declare its own ref with the same id, typed with the interface it expects and listing only the
 * methods it calls, so neither imports the other:
 *
 *   export const greeter = defineService<Greeter>({ id: 'hello.greeter', methods: ['greet'] });
 */
export function defineService<T extends object>(spec: { id: string; methods: readonly (keyof T & string)[]; description?: string }): ServiceRef<T> {
  return Object.freeze({ id: spec.id, methods: Object.freeze([...spec.methods]), ...(spec.description && { description: spec.description }) });
}

/**
 * A service a module provides (its manifest's `provides`): the implementation, or a factory the core calls once at
 * boot with its services. A service is an object of methods.
 */
export function provide<T extends object>(ref: ServiceRef<T>, impl: T | ((services: CoreServices) => T)): ServiceProvision<T> {
  return Object.freeze(typeof impl === 'function' ? { ref, factory: impl as (services: CoreServices) => T } : { ref, impl });
}
