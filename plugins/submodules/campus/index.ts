// The campus submodule: one university, chosen by the deployment (SUBMODULES_CAMPUS_KIT). A university is a kit —
// one folder of declarative content and small parsers (kits/<name>/, the kit format in ../README.md "Campus kits") —
// and this package holds the built-in ones: asu (Arizona State University, the default). An operator adds their
// university as a folder of their own and names its path in the setting; nothing here or in the submodules module
// changes. The submodules module loads the chosen kit (kits.ts there) and runs it.
import { defineKitChoice } from 'quad-submodule-kit';

export default defineKitChoice({
  submodule: 'campus',
  setting: 'SUBMODULES_CAMPUS_KIT',
  default: 'asu',
  builtIn: {
    asu: () => import('./kits/asu/index.js'),
  },
});
