import { Agent, request } from 'undici';
import { isWithinRange, type OperationRange } from '../shared/geo.ts';
import type { GeocodeResult } from '../shared/schemas/services.ts';
import { UpstreamError } from './upstream/client.ts';

export interface GeocoderOptions {
  /** Base URL of a Nominatim-compatible service, e.g. https://nominatim.openstreetmap.org/ */
  baseUrl: string;
  /** Nominatim's usage policy asks every client to identify itself. */
  userAgent: string;
  range: OperationRange;
  timeoutMs?: number;
}

export interface Geocoder {
  search(query: string, lang: string): Promise<(GeocodeResult & { inRange: boolean })[]>;
  reverse(point: { lat: number; lng: number }, lang: string): Promise<GeocodeResult | null>;
  close(): Promise<void>;
}

const DEGREES_PER_METRE_LAT = 1 / 111_320;

/**
 * Address search through a configurable Nominatim-compatible geocoder (ADR 011), called from the
 * server so the browser talks to nobody but us. Searches are biased to a box around the operation
 * range; every answer says whether the point lies within the range.
 */
export function createGeocoder(options: GeocoderOptions): Geocoder {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : options.baseUrl + '/');
  const timeout = options.timeoutMs ?? 5000;
  const dispatcher = new Agent({ connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout, connections: 4 });
  const { centre, radiusMetres } = options.range;
  const dLat = radiusMetres * DEGREES_PER_METRE_LAT;
  const dLng = dLat / Math.cos((centre.lat * Math.PI) / 180);
  const viewbox = [centre.lng - dLng, centre.lat + dLat, centre.lng + dLng, centre.lat - dLat].map((n) => n.toFixed(5)).join(',');

  async function get(path: string, params: Record<string, string>): Promise<unknown> {
    const url = new URL(path, base);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    try {
      const res = await request(url, { method: 'GET', dispatcher, headers: { 'user-agent': options.userAgent, accept: 'application/json' } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`geocoder answered ${res.statusCode}`);
      return JSON.parse(text) as unknown;
    } catch {
      throw new UpstreamError(502, 'geocoder_unavailable', 'The address search is not available right now.', undefined, true);
    }
  }

  const point = (raw: { display_name?: unknown; lat?: unknown; lon?: unknown }): GeocodeResult | null => {
    const lat = Number(raw.lat);
    const lng = Number(raw.lon);
    if (typeof raw.display_name !== 'string' || !Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
    return { label: raw.display_name.slice(0, 300), lat, lng };
  };

  return {
    async search(query, lang) {
      const data = await get('search', { format: 'jsonv2', q: query, limit: '6', viewbox, bounded: '0', 'accept-language': lang });
      if (!Array.isArray(data)) throw new UpstreamError(502, 'geocoder_unavailable', 'The address search is not available right now.', undefined, true);
      return data.flatMap((raw) => {
        const found = point(raw as Record<string, unknown>);
        return found ? [{ ...found, inRange: isWithinRange(options.range, found) }] : [];
      });
    },
    async reverse({ lat, lng }, lang) {
      const data = (await get('reverse', { format: 'jsonv2', lat: String(lat), lon: String(lng), 'accept-language': lang })) as Record<string, unknown> | null;
      return data && !('error' in data) ? point(data) : null;
    },
    close: () => dispatcher.close(),
  };
}
