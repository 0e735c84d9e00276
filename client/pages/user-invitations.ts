/** The invitation buttons' test ids on the users list and a user's page: `resend-<id>`, `cancel-invite-<id>`. */
export const invitationTestId = (id: number) => (button: { key: string }) =>
  `${button.key === 'cancelInvite' ? 'cancel-invite' : button.key === 'resendInvite' ? 'resend' : button.key}-${id}`;
