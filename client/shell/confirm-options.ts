/** The question the confirm dialog asks; its own module so the dialog and its provider both import it. */
export interface ConfirmOptions {
  title?: string;
  message: string;
  /** Styles Yes as dangerous (deletes, cancellations). */
  danger?: boolean;
}
