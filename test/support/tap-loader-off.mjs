// Loaded first in every test process of `npm test` (the compiled tree's .taprc puts it in NODE_OPTIONS, whose
// imports run before the command line's), and in every node process a test starts: tap copies the test's
// NODE_OPTIONS, with its own loader added, into every child's, whatever env the test gives it. That loader
// (@tapjs/processinfo) records every module a process loads, for coverage, which this suite does not collect
// (.taprc's disable-coverage). Node runs such a loader on a thread of its own, a round trip per module: in a test
// process, importing the core took 3.2 s of CPU with it and 2.3 s without (a `quad` command, 2.9 and 1.8 s). Its
// registration is skipped; every other loader (tsx's, for one) registers as usual.
//
// It also turns on Node's compile cache, as `quad` does (core/bin/compile-cache.js): each of the suite's processes
// (test processes, and the `quad` and node processes they start) then reads the bytecode of the modules it shares
// with the others instead of compiling them.
import '../../core/bin/compile-cache.js';
import module from 'node:module';

const register = module.register;
module.register = function registerUnlessTapProcessInfo(specifier, ...rest) {
  if (String(specifier).includes('/@tapjs/processinfo/')) return;
  return register.call(this, specifier, ...rest);
};
