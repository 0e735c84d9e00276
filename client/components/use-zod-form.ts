import { useCallback, useState } from 'react';
import type { z } from 'zod';
import { fieldErrorsOf as zodFieldErrors } from '../../shared/schemas/messages.ts';
import { fieldErrorsOf as serverFieldErrors } from '../errors.ts';

/**
 * Form state validated by the same zod schema the server uses. Errors are message keys
 * (or upstream texts) per field; server errors from a failed mutation land on the same fields.
 */
export function useZodForm<S extends z.ZodType<Record<string, unknown>>>(schema: S, initial: z.input<S>) {
  const [values, setValues] = useState<z.input<S>>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState(false);

  const set = useCallback(<K extends keyof z.input<S>>(key: K, value: z.input<S>[K]) => {
    setValues((current) => ({ ...(current as object), [key]: value }) as z.input<S>);
    setTouched(true);
    setErrors((current) => {
      if (!((key as string) in current)) return current;
      const { [key as string]: _removed, ...rest } = current;
      return rest;
    });
  }, []);

  /**
   * Returns the parsed values, or null after putting the messages on the fields. Given the form
   * element, text typed before the page finished hydrating (kept by the DOM, not by React) counts too.
   */
  const validate = useCallback(
    (form?: HTMLFormElement | null): z.output<S> | null => {
      let current = values;
      if (form) {
        const fromDom: Record<string, unknown> = {};
        for (const [key, value] of new FormData(form)) if (typeof value === 'string' && key in (values as object)) fromDom[key] = value;
        current = { ...(values as object), ...fromDom } as z.input<S>;
        setValues(current);
      }
      const result = schema.safeParse(current);
      if (result.success) {
        setErrors({});
        return result.data;
      }
      setErrors(zodFieldErrors(result.error));
      return null;
    },
    [schema, values],
  );

  const applyServerError = useCallback((error: unknown) => {
    const fields = serverFieldErrors(error);
    if (Object.keys(fields).length > 0) setErrors(fields);
  }, []);

  return { values, setValues, set, errors, setErrors, validate, applyServerError, touched, setTouched };
}
