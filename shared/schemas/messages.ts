/**
 * Validation messages are i18n keys (locales/<lang>/common.json → validation.*) so the same
 * schema speaks English in one browser and Swedish in the next, and the server's errors land on
 * the form field in the user's language. No zod here: the public pages' script reads these too.
 */
export const MSG = {
  required: 'validation.required',
  email: 'validation.email',
  passwordMin: 'validation.passwordMin',
  passwordsDoNotMatch: 'validation.passwordsDoNotMatch',
  tooLong: 'validation.tooLong',
  /** PostgreSQL cannot store U+0000 in text. */
  nul: 'validation.nul',
} as const;

/** What fieldErrorsOf reads of a zod error (classic or zod/mini). */
export interface IssueList {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}

/** Field path → message key, from a zod error; what forms and the tRPC error formatter share. */
export function fieldErrorsOf(error: IssueList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.') || '_form';
    if (!(key in out)) out[key] = issue.message;
  }
  return out;
}
