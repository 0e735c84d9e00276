/**
 * The operation range (§9): a centre in Stockholm and a radius in metres. Both sides read it from
 * configuration (server/env.ts, upstream/config.ts); these are the defaults (ADR 011).
 */
export interface OperationRange {
  centre: { lat: number; lng: number };
  radiusMetres: number;
}

/** Sergels torg, the middle of central Stockholm, and the spec's radius of 3700 (metres). */
export const DEFAULT_OPERATION_RANGE: OperationRange = {
  centre: { lat: 59.33258, lng: 18.0649 },
  radiusMetres: 3700,
};

/** The map and the operation range as the browser draws them: part of the public configuration. */
export interface MapConfig {
  centre: { lat: number; lng: number };
  radiusMetres: number;
  /** Leaflet tile URL template; null draws the range and points without a background map. */
  tileUrl: string | null;
  tileAttribution: string;
  /** Whether an address search (geocoder) is configured. */
  geocoding: boolean;
}

/** Mean Earth radius (IUGG), in metres. */
const EARTH_RADIUS_METRES = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance between two points, in metres (haversine). */
export function distanceMetres(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function isWithinRange(range: OperationRange, point: { lat: number; lng: number }): boolean {
  return distanceMetres(range.centre, point) <= range.radiusMetres;
}

/** The point `metres` away from `from` in direction `bearingDeg` (0 = north), on the same sphere. */
export function destinationPoint(from: { lat: number; lng: number }, bearingDeg: number, metres: number): { lat: number; lng: number } {
  const d = metres / EARTH_RADIUS_METRES;
  const b = rad(bearingDeg);
  const lat1 = rad(from.lat);
  const lng1 = rad(from.lng);
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b));
  const lng2 = lng1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  return { lat: (lat2 * 180) / Math.PI, lng: (((lng2 * 180) / Math.PI + 540) % 360) - 180 };
}
