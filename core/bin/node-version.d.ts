// Types of node-version.js (plain JavaScript so that it runs before anything else loads).
export declare const MINIMUM: readonly [number, number];
export declare function nodeVersionProblem(version: string): string | null;
