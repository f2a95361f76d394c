// ExtractFailed: why a document or page gave no text. Its own file, so the readers (which run in the reader threads,
// extract/worker.ts) and the callers (the request and job threads, extract/index.ts) share it without either loading
// the other.

/** Why a document gave no text; the message is safe to show an officer (no stack, no path, no library detail). */
export class ExtractFailed extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExtractFailed';
  }
}

/** The text passed `maxChars` (MAX_CHUNKS passages of chunk_chars): more than a source holds. */
export const tooLong = (maxChars: number) => new ExtractFailed(
  `The text is longer than a source holds (more than ${maxChars.toLocaleString('en-US')} characters): split it, or raise chunk_chars in the knowledge settings`);
