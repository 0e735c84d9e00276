import type { TFunction } from 'i18next';
import { errorText } from '../errors.ts';
import { useConfirm } from './confirm.tsx';
import { useToast } from './toasts.tsx';

/** The app's own text of a toast: a function of `t`, written when the toast is drawn, so it follows a language switch (ADR 078). */
type Said = (t: TFunction) => string;

/** A step run for the user: awaited, then said in a toast (`success` when given, else nothing) or, refused, the API's reason. */
export type ToastStep = (step: () => Promise<unknown>, success?: Said) => Promise<boolean>;

/** Runs a step and says how it went in a toast; answers whether it went through. */
export function useToastStep(): ToastStep {
  const toast = useToast();
  return async (step, success) => {
    try {
      await step();
      if (success) toast.success(success);
      return true;
    } catch (error) {
      toast.error((t) => errorText(t, error));
      return false;
    }
  };
}

/** As `useToastStep`, after a dangerous yes/no question (a removal): nothing happens on No. */
export function useConfirmedStep(): (question: string, step: () => Promise<unknown>, success?: Said) => Promise<boolean> {
  const confirm = useConfirm();
  const run = useToastStep();
  return async (question, step, success) => {
    if (!(await confirm({ message: question, danger: true }))) return false;
    return run(step, success);
  };
}

/** Picks an image file for `save`: refuses other types in a toast, uploads it, then runs `save(url)` as a toast step. */
export function useImageFile(upload: (file: File) => Promise<string | null>, types: readonly string[], save: (url: string) => Promise<unknown>, success: Said) {
  const toast = useToast();
  const run = useToastStep();
  return async (file: File | undefined) => {
    if (!file) return;
    if (!types.includes(file.type)) {
      toast.error((t) => t('upload.onlyImages'));
      return;
    }
    const url = await upload(file);
    if (!url) return;
    await run(() => save(url), success);
  };
}
