import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from './button.js';

/**
 * Ask before doing something: a modal dialog (the browser's <dialog>: focus stays inside, Escape cancels).
 * `<ConfirmDialog open={asking} title="Remove Store?" confirmLabel="Remove" danger onConfirm={…} onCancel={…}>…</ConfirmDialog>`
 */
export function ConfirmDialog({ open, title, children, confirmLabel = 'Confirm', cancelLabel = 'Cancel', danger = false, busy = false, onConfirm, onCancel }: {
  open: boolean; title: ReactNode; children?: ReactNode; confirmLabel?: string; cancelLabel?: string; danger?: boolean; busy?: boolean;
  onConfirm: () => void; onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="q-dialog" aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <h2 id={titleId} className="q-dialog-title">{title}</h2>
      <div className="q-dialog-body">{children}</div>
      <div className="q-dialog-actions">
        <Button onClick={onCancel} autoFocus>{cancelLabel}</Button>
        <Button variant={danger ? 'danger' : 'primary'} onClick={onConfirm} disabled={busy}>{confirmLabel}</Button>
      </div>
    </dialog>
  );
}
