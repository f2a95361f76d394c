import type { ButtonHTMLAttributes } from 'react';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** `primary` wears the org's accent color; `danger` is for removing and deleting. Default: `secondary`. */
  variant?: 'primary' | 'secondary' | 'danger';
}

export function Button({ variant = 'secondary', className, type = 'button', ...rest }: ButtonProps) {
  return <button type={type} className={['q-button', `q-button-${variant}`, className].filter(Boolean).join(' ')} {...rest} />;
}
