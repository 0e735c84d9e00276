import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from 'react';

type Props = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'> & {
  to: string;
  /** The router's `navigate`, taken once by the component rendering many links (a hook per link is not free). */
  navigate: (to: string) => void;
  children: ReactNode;
};

/**
 * A link inside the app: a plain `<a href>` that the router follows on a plain click (a click with a modifier,
 * or another button, is the browser's: a new tab, a download). react-router's `Link` does the same with a
 * handful of hooks per link; a list's rows and the sidebar render dozens of links per page, and on the
 * server those hooks were a visible part of the render (ADR 055).
 */
export function AppLink({ to, navigate, children, ...rest }: Props) {
  return (
    <a
      {...rest}
      href={to}
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
