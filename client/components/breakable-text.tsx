import { Fragment, type ReactNode } from 'react';

/**
 * An e-mail address that may wrap before its "@", never inside a word (ADR 045): `<wbr>` offers the
 * place, and tables and cards take it before any other. Issue 19's users list wrapped
 * "hugo.berg23@exam|ple.com"; now "hugo.berg23 | @example.com".
 */
export function breakableText(text: string): ReactNode {
  if (!text.includes('@')) return text;
  const parts = text.split(/(?=@)/);
  return parts.map((part, i) =>
    i === 0 ? (
      part
    ) : (
      <Fragment key={i}>
        <wbr />
        {part}
      </Fragment>
    ),
  );
}
