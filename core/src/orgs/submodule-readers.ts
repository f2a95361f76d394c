// The module listing's `submodules` (spec document 1, "Module listing record"): per module, the submodules it reads.
// Submodules are content of the submodules module, a plugin: when one is loaded, its service
// `submodules.subscriptions` says which module reads which submodule (method `readers`). Without it every list is empty.
import { defineService } from '../modules/define.js';
import type { CoreServices } from '../core-services.js';

export type SubmoduleReaders = Record<string, { name: string; title: string }[]>;

const catalog = defineService<{ readers(): Promise<SubmoduleReaders> }>({ id: 'submodules.subscriptions', methods: ['readers'] });

export async function submoduleReaders(services: Pick<CoreServices, 'registry' | 'service'>): Promise<SubmoduleReaders> {
  return services.registry.services.has(catalog.id) ? services.service(catalog).readers() : {};
}
