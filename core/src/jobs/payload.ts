// Job payload checks: the declared TypeBox schema, or an empty object when none is declared.
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import '../http/formats.js';
import type { JobDecl } from '../modules/types.js';

const EmptyPayload = Type.Object({}, { additionalProperties: false });
const compiled = new WeakMap<object, TypeCheck<TSchema>>();

/** The first problem with a payload, as `field: message`, or null when it fits the job's schema. */
export function payloadProblem(job: JobDecl, payload: unknown): string | null {
  let check = compiled.get(job);
  if (!check) {
    check = TypeCompiler.Compile(job.payload ?? EmptyPayload);
    compiled.set(job, check);
  }
  const first = check.Errors(payload).First();
  if (!first) return null;
  return `${first.path.replace(/^\//, '').replace(/\//g, '.') || 'payload'}: ${first.message}`;
}
