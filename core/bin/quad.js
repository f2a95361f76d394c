#!/usr/bin/env node
// `quad` on the PATH (`npx quad …` in a clone): the CLI is TypeScript, so tsx's loader is registered in this
// process first (no second process between the shell's signals and the server).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
