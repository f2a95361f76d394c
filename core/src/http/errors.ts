// Handled errors carry their status; everything else is a 500 that lands in the error log.
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly reason?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, reason?: string, details?: Record<string, unknown>) => new HttpError(400, message, reason, details);
export const unauthorized = (message = 'Authentication required', reason?: string) => new HttpError(401, message, reason);
export const forbidden = (message = 'Forbidden', reason?: string) => new HttpError(403, message, reason);
export const notFound = (message = 'Not found', reason?: string) => new HttpError(404, message, reason);
export const conflict = (message: string, reason?: string, details?: Record<string, unknown>) => new HttpError(409, message, reason, details);
export const tooManyRequests = (message: string, reason?: string, details?: Record<string, unknown>) => new HttpError(429, message, reason, details);
export const unavailable = (message: string, reason?: string) => new HttpError(503, message, reason);
