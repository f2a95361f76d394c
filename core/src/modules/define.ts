// defineModule / defineTool / defineJob: data-first declarations. Nothing here runs a module; the registry validates.
import type { TSchema } from '@sinclair/typebox';
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
    tools: [],
    jobs: [],
    events: [],
    databaseExtensions: [],
    integrations: [],
    secrets: [],
    daemons: [],
    eventHandlers: [],
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
