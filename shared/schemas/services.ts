import { z } from 'zod';
import { MSG } from './messages.ts';

/** §3 service detail of one service item: its check status (1–3), the needs-repair flag and notes. */
export const serviceDetailInput = z.object({
  check_status: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: 'validation.checkStatusRequired' }),
  needs_repair: z.boolean().default(false),
  notes: z
    .string()
    .trim()
    .max(2000, { error: MSG.tooLong })
    .nullish()
    .transform((v) => v || null),
});
export type ServiceDetailInput = z.infer<typeof serviceDetailInput>;

export interface ServiceDetailImage {
  id: number;
  url: string;
}

/** One row of a service's checklist: the service item and what was recorded for it (or null). */
export interface ServiceDetailRow {
  service_item_id: number;
  name_en: string;
  name_sv: string;
  description: string | null;
  detail: {
    id: number;
    check_status: 1 | 2 | 3 | null;
    needs_repair: boolean;
    notes: string | null;
    version: number;
    updated_at: string;
    images: ServiceDetailImage[];
  } | null;
}

/** Address search and reverse lookup through the configured geocoder (ADR 011). */
export const geocodeSearchInput = z.object({ query: z.string().trim().min(3, { error: 'validation.searchTooShort' }).max(200, { error: MSG.tooLong }) });
export const geocodeReverseInput = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) });

export interface GeocodeResult {
  label: string;
  lat: number;
  lng: number;
}
