// The signed-in test world moved to @quad/core/testing (core/src/testing/sign-in.ts), so plugin tests reach it
// through the package; the core's own tests keep importing it from here.
export * from '../../core/src/testing/sign-in.js';
