/**
 * The user actions' test ids on the users list and a user's page: `resend-<id>`, `cancel-invite-<id>`, and
 * `<key>-<variant>-<id>` (`exportData-json-<id>`) or `<key>-<id>` (`erase-<id>`) for the others.
 */
export const invitationTestId = (id: number) => (button: { key: string; variant?: string }) =>
  `${button.key === 'cancelInvite' ? 'cancel-invite' : button.key === 'resendInvite' ? 'resend' : button.variant ? `${button.key}-${button.variant}` : button.key}-${id}`;
