import { ActionList, ActionMenu } from '@primer/react';
import type { RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

/** The account menu (Profile, Sign-in security, Logout), anchored to the shell's account button; loaded on first open. */
export default function AccountMenu({
  anchorRef,
  onClose,
  onLogout,
  loggingOut,
}: {
  anchorRef: RefObject<HTMLButtonElement | null>;
  onClose: () => void;
  onLogout: () => void;
  loggingOut: boolean;
}) {
  const { t } = useTranslation();
  return (
    <ActionMenu anchorRef={anchorRef} open onOpenChange={(open) => !open && onClose()}>
      <ActionMenu.Overlay align="end">
        <ActionList>
          <ActionList.LinkItem as={Link} to="/profile" onClick={onClose}>
            {t('shell.profile')}
          </ActionList.LinkItem>
          <ActionList.LinkItem as={Link} to="/security" onClick={onClose}>
            {t('shell.security')}
          </ActionList.LinkItem>
          <ActionList.Divider />
          <ActionList.Item variant="danger" onSelect={onLogout} disabled={loggingOut}>
            {t('shell.logout')}
          </ActionList.Item>
        </ActionList>
      </ActionMenu.Overlay>
    </ActionMenu>
  );
}
