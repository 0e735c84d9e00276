import { forgotPasswordInput, loginInput, newPasswordInput, secondFactorInput } from '../../shared/schemas/credentials.ts';
import { fieldErrorsOf, type IssueList } from '../../shared/schemas/messages.ts';
import { BACKGROUND_FORM_HEADER } from '../../shared/http-headers.ts';
import type { PublicBoot } from './boot.ts';

/** The server's own schemas (zod/mini), so the messages before posting are the ones the server would give. */
const SCHEMAS: Record<string, { safeParse(value: unknown): { success: true } | { success: false; error: IssueList } }> = {
  login: loginInput,
  'forgot-password': forgotPasswordInput,
  'new-password': newPasswordInput,
  'second-factor': secondFactorInput,
};

/** Shows or clears a field's message in the markup the server renders for it (public-layout.tsx `Field`). */
function setFieldError(input: HTMLInputElement, text: string | null) {
  const id = `${input.id}-error`;
  let message = document.getElementById(id);
  if (!text) {
    message?.remove();
    input.removeAttribute('aria-invalid');
    input.removeAttribute('aria-describedby');
    return;
  }
  if (!message) {
    message = document.createElement('span');
    message.className = 'field-error';
    message.id = id;
    input.after(message);
  }
  message.textContent = text;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', id);
}

function setBusy(form: HTMLFormElement, busy: boolean) {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (busy) {
    form.dataset.busy = 'true';
    button?.setAttribute('aria-disabled', 'true');
  } else {
    delete form.dataset.busy;
    button?.removeAttribute('aria-disabled');
  }
}

/** Messages in the page's language; a key without a text (a server-side message) shows as it is. */
function messageText(boot: PublicBoot, key: string): string {
  return boot.messages[key] ?? key;
}

/** Validates with the shared schema; returns false after putting the messages on the fields. */
function validate(form: HTMLFormElement, values: Record<string, string>, boot: PublicBoot): boolean {
  const schema = SCHEMAS[form.dataset.form ?? ''];
  if (!schema) return true;
  const result = schema.safeParse(values);
  const errors = result.success ? {} : fieldErrorsOf(result.error);
  let first: HTMLInputElement | null = null;
  for (const input of form.querySelectorAll<HTMLInputElement>('input:not([type="hidden"])')) {
    const key = errors[input.name];
    setFieldError(input, key ? messageText(boot, key) : null);
    if (key && !first) first = input;
  }
  first?.focus();
  return !first;
}

/** Puts the server's answer (the same page, showing the outcome) in place of the current content. */
function showAnswer(html: string, boot: PublicBoot): boolean {
  const next = new DOMParser().parseFromString(html, 'text/html').querySelector('[data-public-main]');
  const current = document.querySelector('[data-public-main]');
  if (!next || !current) return false;
  const adopted = document.importNode(next, true) as HTMLElement;
  current.replaceWith(adopted);
  enhanceForms(adopted, boot);
  // Where the user should look: the first field with a message, else the announcement.
  adopted.querySelector<HTMLElement>('[aria-invalid="true"], .flash[tabindex]')?.focus();
  return true;
}

async function submit(event: SubmitEvent, form: HTMLFormElement, boot: PublicBoot) {
  event.preventDefault();
  if (form.dataset.busy) return;
  const values: Record<string, string> = {};
  for (const [key, value] of new FormData(form)) if (typeof value === 'string') values[key] = value;
  if (!validate(form, values, boot)) return;
  setBusy(form, true);
  try {
    const response = await fetch(form.action, { method: 'POST', body: new URLSearchParams(values), headers: { [BACKGROUND_FORM_HEADER]: '1' }, credentials: 'same-origin' });
    if (response.headers.get('content-type')?.includes('application/json')) {
      const { location } = (await response.json()) as { location?: unknown };
      if (typeof location === 'string' && location.startsWith('/')) {
        // Stays busy: the next page is on its way.
        window.location.assign(location);
        return;
      }
    } else if (showAnswer(await response.text(), boot)) {
      return;
    }
  } catch {
    // Not answered in the background: post the ordinary way, which needs no script.
  }
  setBusy(form, false);
  form.submit();
}

/** Validates before posting and posts in the background, every form of the public pages under `root`. */
export function enhanceForms(root: ParentNode, boot: PublicBoot) {
  for (const form of root.querySelectorAll<HTMLFormElement>('form[data-form]')) {
    // Our messages instead of the browser's bubbles, which only the page without script relies on.
    form.noValidate = true;
    form.addEventListener('submit', (event) => void submit(event, form, boot));
    // A field's message goes away as soon as the user edits it.
    form.addEventListener('input', (event) => {
      if (event.target instanceof HTMLInputElement) setFieldError(event.target, null);
    });
  }
}
