import type { EntityRecord } from '../../shared/entity/define.ts';

/** The invitation buttons' test ids on the users list and a user's page: `resend-<id>`, `cancel-invite-<id>`. */
export const invitationTestId = (id: number) => (button: { key: string }) =>
  `${button.key === 'cancelInvite' ? 'cancel-invite' : button.key === 'resendInvite' ? 'resend' : button.key}-${id}`;

/** "Invite again" rather than "Resend" for a canceled invitation (its texts' `reopen` context). */
export const invitationContext = (button: { key: string }, record: EntityRecord) =>
  button.key === 'resendInvite' && record.invitation_status === 'canceled' ? 'reopen' : undefined;
