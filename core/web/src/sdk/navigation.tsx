// Links and navigation inside the dashboard for plugin pages (which do not share the dashboard's router):
// paths are the dashboard's, e.g. `/hello/12` opens /dashboard/hello/12.
import type { AnchorHTMLAttributes, ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';

export function DashboardLink({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  return <Link to={to} {...rest}>{children}</Link>;
}

/** `const go = useDashboardNavigate(); go('/hello/12')`. */
export function useDashboardNavigate(): (to: string, options?: { replace?: boolean }) => void {
  const navigate = useNavigate();
  return (to, options) => { void navigate(to, options); };
}
