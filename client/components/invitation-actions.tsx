import { Button } from '@primer/react';
import { useTranslation } from 'react-i18next';
import type { UserListRow } from '../../server/trpc/routers/users.ts';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

type Invitee = Pick<UserListRow, 'id' | 'email' | 'invitation_status' | 'is_active'>;

/**
 * Resend (a pending invitation; a canceled one of an active account, which re-opens it) and cancel (a
 * pending one: its links stop working), each behind a confirm dialog (ADR 018).
 */
export function InvitationActions({ user, size = 'small' }: { user: Invitee; size?: 'small' | 'medium' }) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = trpc.useUtils();
  const resend = trpc.users.resendInvite.useMutation();
  const cancel = trpc.users.cancelInvite.useMutation();
  const pending = user.invitation_status === 'pending';
  const reopenable = user.invitation_status === 'canceled' && user.is_active;
  if (!pending && !reopenable) return null;

  const run = async (question: string, action: () => Promise<unknown>, done: string, danger = false) => {
    if (!(await confirm({ message: question, danger }))) return;
    try {
      await action();
      toast.success(done);
      await Promise.all([utils.users.get.invalidate({ id: user.id }), utils.users.list.invalidate()]);
    } catch (error) {
      toast.error(errorText(t, error));
    }
  };

  return (
    <span style={{ display: 'inline-flex', gap: 8, flexWrap: 'wrap' }}>
      <Button
        size={size}
        data-testid={`resend-${user.id}`}
        loading={resend.isPending}
        onClick={() =>
          void run(
            t(pending ? 'users.resendConfirm' : 'invitations.reopenConfirm', { email: user.email }),
            () => resend.mutateAsync({ id: user.id }),
            t('users.resent', { email: user.email }),
          )
        }
      >
        {t(pending ? 'users.resend' : 'invitations.reopen')}
      </Button>
      {pending && (
        <Button
          size={size}
          variant="danger"
          data-testid={`cancel-invite-${user.id}`}
          loading={cancel.isPending}
          onClick={() =>
            void run(t('invitations.cancelConfirm', { email: user.email }), () => cancel.mutateAsync({ id: user.id }), t('invitations.canceled', { email: user.email }), true)
          }
        >
          {t('invitations.cancel')}
        </Button>
      )}
    </span>
  );
}
