import { z } from 'zod';
import { LANGUAGES } from '../languages.ts';

export const languageField = z.enum(LANGUAGES);

export const COUNTRIES = ['gb', 'se'] as const;
