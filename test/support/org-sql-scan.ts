// Finds SQL texts that name an org table outside the org-bound handle: string and template literals under plugins/
// and core/src whose text reads, writes or joins an `org` or `shared` table, and that are not a tagged template of
// `sql` or of a handle's `sql`, `one` or `run` (README "Org isolation"). The static guardrail counts them per file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Tagged templates that go through the org-bound handle: `sql` fragments, and `<handle>.sql|one|run`. */
const HANDLE_TAGS = new Set(['sql', 'one', 'run']);

/** Folders that hold no module code (tests, prebuilt pages, the test harness). */
const SKIPPED = new Set(['test', 'web', 'dist', 'node_modules', 'testing']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED.has(name) ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A pattern that finds `from|join|into|update <table>` for any of `tables` (plain words: no backtracking). */
export function tablePattern(tables: readonly string[]): RegExp {
  const names = [...tables].sort((a, b) => b.length - a.length).join('|');
  return new RegExp(`\\b(?:from|join|into|update|table)\\s+(?:only\\s+)?"?(${names})"?(?![a-z0-9_])`, 'i');
}

/** The text of a literal, its placeholders as `$`. */
function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => `$${s.literal.text}`)].join('');
  return null;
}

function throughHandle(node: ts.Node): boolean {
  const parent = node.parent;
  if (!parent || !ts.isTaggedTemplateExpression(parent)) return false;
  const tag = parent.tag;
  if (ts.isIdentifier(tag)) return HANDLE_TAGS.has(tag.text);
  return ts.isPropertyAccessExpression(tag) && HANDLE_TAGS.has(tag.name.text);
}

export interface RawOrgSql { file: string; line: number; table: string }

/** Every SQL text naming an org table outside the handle, in the files under `roots` (relative to `base`). */
export function scanOrgSql(base: string, roots: readonly string[], tables: readonly string[]): RawOrgSql[] {
  const pattern = tablePattern(tables);
  const found: RawOrgSql[] = [];
  for (const file of roots.flatMap((root) => sourceFiles(join(base, root)))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      const text = literalText(node);
      if (text !== null) {
        const match = pattern.exec(text);
        if (match && !throughHandle(node)) {
          found.push({ file: relative(base, file), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, table: match[1]!.toLowerCase() });
        }
      }
      ts.forEachChild(node, visit); // a template's spans may hold literals of their own

    };
    visit(source);
  }
  return found;
}
