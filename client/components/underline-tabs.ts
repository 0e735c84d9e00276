import styled from 'styled-components';

/**
 * Tabs drawn as Primer's underline navigation, without its component: kept out of every record page's chunk
 * list, and wrapping onto a second line where they do not fit instead of Primer's overflow menu, whose
 * "More" button is English in every language (issue 33). Children are links with `aria-current="page"`.
 */
export const UnderlineTabs = styled.nav`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  margin-bottom: 16px;
  border-bottom: 1px solid var(--borderColor-muted, #d1d9e0b3);
  a {
    padding: 8px 12px;
    color: var(--fgColor-default, #1f2328);
    text-decoration: none;
    border-bottom: 2px solid transparent;
    margin-bottom: -1px;
    border-radius: 6px 6px 0 0;
  }
  a:hover {
    background: var(--bgColor-neutral-muted, #818b981f);
  }
  a:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
  }
  a[aria-current='page'] {
    font-weight: 600;
    border-bottom-color: var(--underlineNav-borderColor-active, #fd8c73);
  }
`;
