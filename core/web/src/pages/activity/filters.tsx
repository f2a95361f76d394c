// A filter bar: the caller's selects (they apply at once) and text fields that apply with the Filter button or Enter.
import { useState, type ReactNode } from 'react';
import { Button } from '../../sdk/ui/button.js';
import { Field } from '../../sdk/ui/field.js';

export interface TextFilter { name: string; label: string; hint?: string }

export function Filters({ label, text, onApply, children }: {
  label: string; text: TextFilter[]; onApply: (values: Record<string, string>) => void; children?: ReactNode;
}) {
  const [draft, setDraft] = useState<Record<string, string>>({});
  return (
    <form className="q-filters" role="search" aria-label={label}
      onSubmit={(e) => { e.preventDefault(); onApply(Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, v.trim()]))); }}>
      {children}
      {text.map((f) => (
        <Field key={f.name} label={f.label} hint={f.hint} type="search" value={draft[f.name] ?? ''} maxLength={200}
          onChange={(e) => setDraft((d) => ({ ...d, [f.name]: e.target.value }))} />
      ))}
      {text.length > 0 && <Button type="submit">Filter</Button>}
    </form>
  );
}
