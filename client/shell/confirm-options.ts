/** The question the confirm dialog asks; its own module so the dialog and its provider both import it. */
export interface ConfirmOptions {
  title?: string;
  message: string;
  /** Styles Yes as dangerous (deletes, cancellations). */
  danger?: boolean;
  /** The buttons' words when Yes and No would not say what happens ("Place at 08:00", "Stay signed in"). */
  yes?: string;
  no?: string;
  /** The button that has the focus when the dialog opens (Yes unless said): No where Yes loses something. */
  focus?: 'yes' | 'no';
  /** A text (an e-mail) that must be typed before Yes is enabled: for a step that cannot be undone (an erasure, ADR 076). */
  typed?: string;
}
