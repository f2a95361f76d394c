// A submodule package or kit that fails at boot: one error naming where (the package, or the kit setting and kit)
// and the field, from the kit's own check (submoduleProblems).
import { submoduleProblems, type SubmoduleDecl } from 'quad-submodule-kit';

export class SubmoduleConfigError extends Error {
  override name = 'SubmoduleConfigError';
}

/** The content when it passes the kit's check; else the first problem (and a few more), worded by `where`. */
export function checked(content: unknown, where: (problem: string) => string): SubmoduleDecl {
  const problems = submoduleProblems(content);
  if (problems.length) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more: ${problems.slice(1, 4).join('; ')})` : '';
    throw new SubmoduleConfigError(where(`${problems[0]}${more}`));
  }
  return content as SubmoduleDecl;
}
