#!/usr/bin/env node
// The installed command (`npm run build`, then `npm i -g ./plugins/pods/cli`): runs the built CLI.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
