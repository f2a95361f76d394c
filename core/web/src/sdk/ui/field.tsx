import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldBase {
  label: ReactNode;
  /** A line under the control, read with it by screen readers. */
  hint?: ReactNode;
  /** An error under the control; marks it invalid. */
  error?: ReactNode;
}

type InputField = FieldBase & { as?: 'input' } & InputHTMLAttributes<HTMLInputElement>;
type TextareaField = FieldBase & { as: 'textarea' } & TextareaHTMLAttributes<HTMLTextAreaElement>;
type SelectField = FieldBase & { as: 'select' } & SelectHTMLAttributes<HTMLSelectElement>;

/** A labelled form control: `<Field label="Name" value={name} onChange={…} />` (`as="textarea"` or `as="select"`). */
export function Field(props: InputField | TextareaField | SelectField) {
  const { label, hint, error, as = 'input', id: given, ...rest } = props;
  const generated = useId();
  const id = given ?? generated;
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': described, 'aria-invalid': error ? true : undefined, className: 'q-control' };
  return (
    <div className="q-field">
      <label htmlFor={id} className="q-label">{label}</label>
      {as === 'textarea' ? <textarea {...common} {...(rest as TextareaHTMLAttributes<HTMLTextAreaElement>)} />
        : as === 'select' ? <select {...common} {...(rest as SelectHTMLAttributes<HTMLSelectElement>)} />
          : <input {...common} {...(rest as InputHTMLAttributes<HTMLInputElement>)} />}
      {hint && <p id={`${id}-hint`} className="q-hint">{hint}</p>}
      {error && <p id={`${id}-error`} className="q-error" role="alert">{error}</p>}
    </div>
  );
}
