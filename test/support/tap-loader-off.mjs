// Loaded first in every test process of `npm test` (the compiled tree's .taprc puts it in NODE_OPTIONS, whose
// imports run before the command line's): tap's runner starts each test with its process-info loader
// (@tapjs/processinfo), which records every module a process loads, for coverage, which this suite does not collect
// (.taprc's disable-coverage). Node 20 runs such a loader on a thread of its own, a round trip per module: in a test
// process, importing the core took 3.2 s of CPU with it and 2.3 s without, in each of the suite's ~180 test processes
// and in the processes they start that inherit NODE_OPTIONS (see also without-tap-loader.ts). Its registration is
// skipped; every other loader (tsx's, for one) registers as usual.
import module from 'node:module';

const register = module.register;
module.register = function registerUnlessTapProcessInfo(specifier, ...rest) {
  if (String(specifier).includes('/@tapjs/processinfo/')) return;
  return register.call(this, specifier, ...rest);
};
