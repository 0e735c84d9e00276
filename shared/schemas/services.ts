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
  /** A service is not finished while a required item is unanswered (ADR 043). */
  is_required: boolean;
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

/** A page of a bicycle's service history (ADR 023): newest first, 10 to a page unless asked otherwise. */
export const bicycleHistoryInput = z.object({
  id: z.number().int().positive(),
  page: z.number().int().min(1).max(1_000_000).default(1),
  page_size: z.union([z.literal(10), z.literal(25), z.literal(50), z.literal(100)]).default(10),
});

/** One service in a bicycle's history, with what was found (the checklist in two counts) and the rating. */
export interface BicycleHistoryRow {
  id: number;
  service_date: string;
  slot_label: string | null;
  status: number;
  service_type_label: string | null;
  buddy_label: string | null;
  notes: string | null;
  rating: number | null;
  /** Service items with a check status recorded, and those found needing repair. */
  checked: number;
  needs_repair: number;
  /** The service's photos (ADR 043). */
  photos: string[];
}
