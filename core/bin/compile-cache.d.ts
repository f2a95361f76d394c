// compile-cache.js has no exports: importing it turns on Node's on-disk compile cache for what loads after it.
export {};
