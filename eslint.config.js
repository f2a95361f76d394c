// The ReDoS check (issue 38): eslint-plugin-regexp's two super-linear rules over every regular expression in core/,
// plugins/, examples/ and test/support/ (literals and `new RegExp('…')` with a constant source), and nothing else.
// `npm run lint:regexp` runs it (a step of `npm test`); test/guardrails/redos.test.ts proves it fails on the
// issue's two patterns. Only the TypeScript parser, without type information: the rules need the syntax alone.
import tsParser from '@typescript-eslint/parser';
import regexp from 'eslint-plugin-regexp';

export default [
  // Build output, mirrors and run-time folders: the compiled trees mirror the sources (.test-build/, .bench-build/),
  // dist/ holds esbuild's and Vite's output (the dashboard and the plugins' pages build to <package>/web/dist/).
  { ignores: ['**/node_modules/', '**/dist/', '.test-build/', '.bench-build/', 'coverage/', 'data/', '.tap/'] },
  {
    files: [
      '{core,plugins,examples}/**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}',
      'test/support/**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}',
    ],
    languageOptions: { parser: tsParser },
    plugins: { regexp },
    rules: {
      // Two quantifiers that can trade characters, or one that can reach itself (`[^\s/>]*[^>]*`, `(.*?)[ \t]*$`):
      // polynomial or exponential backtracking at one start position. `potential` also reports a pattern whose
      // own ending never rejects when it is used in a way the rule cannot follow (handed to another function, or
      // its `.source` built into a bigger pattern), where a rejecting suffix may follow; `certain` would pass them.
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      // A quantifier the engine reaches at every start position (`\/+$`, `\s+x`): each failing position costs O(n),
      // so a search over n characters costs O(n²). `potential` as above.
      // ignoreSticky (true, the default): a /y pattern is tried at lastIndex only, so it is never moved along.
      // ignorePartial: false: a pattern used only through `.source` is checked too, since the pattern built from it
      // is not always a constant the rule can follow.
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: true, ignorePartial: false }],
      // On this tree (issue 38) the defaults and these stricter settings reported the same 38 findings: the
      // strictness adds no noise today.
    },
  },
];
