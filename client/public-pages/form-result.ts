/**
 * The outcome of a public form posted to the server (ADR 024), rendered into the page that answers the
 * post: the server passes codes and keys, the page translates them with the rules of client/errors.ts.
 */
export interface PublicFormResult {
  /** The action succeeded: the page shows its confirmation instead of the form. */
  done?: boolean;
  /** Why it failed: the app or upstream error code, and the text that goes with it. */
  error?: { appCode: string | null; message: string };
  /** Field → message: an i18n key (`validation.email`) or the upstream's text. */
  fields?: Record<string, string>;
  /** What the user typed, shown again (never passwords). */
  values?: Record<string, string>;
}
