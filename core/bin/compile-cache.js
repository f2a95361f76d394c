// Imported right after check-node.js by the `quad` command and core/dist/cli.js: Node.js keeps the bytecode it
// compiles for Quad's modules and its dependencies on disk and reuses it in the next process, which then starts with
// about a quarter less CPU (a `quad` command, every process of a deployment). The cache lives in Node's default
// folder (os.tmpdir()/node-compile-cache) unless NODE_COMPILE_CACHE names another; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off. Node checks each entry against its source, so an upgrade or an edit only misses the cache once.
import module from 'node:module';

module.enableCompileCache?.();
