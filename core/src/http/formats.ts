// String formats (`uuid`, `date-time`, `email`, `uri`…) for TypeBox's own compiler, which checks tool inputs and job
// payloads: the same definitions as ajv-formats gives the routes' validator, so a format means the same in a route,
// a tool and a job. Import this module before compiling a schema; it registers once.
import { FormatRegistry } from '@sinclair/typebox';
import { fullFormats } from 'ajv-formats/dist/formats.js';

type Format = RegExp | ((value: string) => boolean) | { type?: string; validate: RegExp | ((value: string) => boolean) };

const test = (check: RegExp | ((value: string) => boolean), value: string) => (check instanceof RegExp ? check.test(value) : check(value));

for (const [name, format] of Object.entries(fullFormats as Record<string, Format | true>)) {
  if (format === true || FormatRegistry.Has(name)) continue;
  // Number formats (int32, float…) do not apply to strings, where TypeBox looks formats up.
  if (typeof format === 'object' && !(format instanceof RegExp) && format.type && format.type !== 'string') continue;
  const check = typeof format === 'object' && !(format instanceof RegExp) ? format.validate : format;
  FormatRegistry.Set(name, (value) => test(check, value));
}
