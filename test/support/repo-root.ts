// The repository's folder, also when a test runs from the suite's compiled tree (.test-build/, which mirrors it with
// JavaScript beside the sources and is ignored by git): for tests that work on the repository as such (git's file
// list, a clone of it, the Docker build context).
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\.test-build\/$/, '');
