import { Heading } from '@primer/react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { LanguageSwitch } from '../shell/language-switch.tsx';

const Page = styled.div`
  min-height: 100vh;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: 16px;
  padding: 24px 16px;
  background: var(--bgColor-inset, #f6f8fa);
`;

const Card = styled.main`
  width: 100%;
  max-width: 400px;
  background: var(--bgColor-default, #fff);
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-radius: 12px;
  padding: 24px;
  display: flex;
  flex-direction: column;
  gap: 16px;
`;

const Top = styled.div`
  width: 100%;
  max-width: 400px;
  display: flex;
  align-items: center;
  justify-content: space-between;
  font-weight: 600;
`;

export const FormStack = styled.form`
  display: flex;
  flex-direction: column;
  gap: 16px;
`;

export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Page>
      <Top>
        <span>{t('app.name')}</span>
        <LanguageSwitch />
      </Top>
      <Card>
        <Heading as="h1" style={{ fontSize: 20 }}>
          {title}
        </Heading>
        {children}
      </Card>
      <small style={{ color: 'var(--fgColor-muted, #59636e)' }}>{t('app.tagline')}</small>
    </Page>
  );
}
