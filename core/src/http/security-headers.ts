// Security headers: helmet decides them (its defaults plus ours), once at start. Our set has no per-request part
// (no CSP nonces), so running helmet's middleware on every answer, as @fastify/helmet does, re-derived the same
// dozen headers each time and cost about half of a small route's throughput.
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet's middleware would set with `options`, as one object to copy onto each answer. */
export function securityHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) { headers[name.toLowerCase()] = String(value); },
    removeHeader(name: string) { delete headers[name.toLowerCase()]; },
  };
  let called = false;
  helmet(options)({} as never, recorder as never, (err?: unknown) => {
    if (err) throw err;
    called = true;
  });
  // helmet's middleware is synchronous when no directive is a function; a per-request option would break this.
  if (!called) throw new Error('security headers: helmet did not finish synchronously (a per-request option?)');
  return Object.freeze(headers);
}
