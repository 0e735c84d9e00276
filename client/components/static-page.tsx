import { Heading, Text } from '@primer/react';
import type { ReactNode } from 'react';
import styled from 'styled-components';
import { LanguageSwitch } from '../shell/language-switch.tsx';

const Wrap = styled.main`
  max-width: 720px;
  margin: 0 auto;
  padding: 32px 16px;
  display: flex;
  flex-direction: column;
  gap: 16px;
`;

export function StaticPage({ title, children, lang }: { title: string; children: ReactNode; lang?: string }) {
  return (
    <Wrap lang={lang}>
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }}>
        <Heading as="h1">{title}</Heading>
        <LanguageSwitch />
      </div>
      <Text as="div" style={{ lineHeight: 1.6 }}>
        {children}
      </Text>
    </Wrap>
  );
}
