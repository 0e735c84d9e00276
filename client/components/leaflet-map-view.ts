import * as L from 'leaflet';
import leafletCss from 'leaflet/dist/leaflet.css?inline';

/**
 * The imperative Leaflet part of LeafletMap, in its own chunk: it (and Leaflet's CSS) loads only when a
 * page shows a map (ADR 011). Everything is drawn as vector layers, so the range circle, the centre and
 * the chosen point show — and clicks pick points — even when no tiles load (no tile URL, no internet).
 */
/** Leaflet's own texts in the UI language (issue 33: its zoom buttons and attribution were English). */
export interface MapTexts {
  zoomIn: string;
  zoomOut: string;
  /** The title of the "Leaflet" link in the attribution. */
  leafletTitle: string;
}

export interface MapViewOptions {
  texts: MapTexts;
  centre: { lat: number; lng: number };
  radiusMetres: number;
  tileUrl: string | null;
  attribution: string;
  point: { lat: number; lng: number } | null;
  onPick?: (point: { lat: number; lng: number }) => void;
}

export interface MapView {
  setPoint(point: { lat: number; lng: number } | null): void;
  /** Writes Leaflet's texts in another language (after a language switch), keeping the map as it is. */
  setTexts(texts: MapTexts): void;
  destroy(): void;
}

// Numbered stop markers (the Today page): a round badge per stop, red and dashed when outside the range.
const STOP_CSS = `
.stop-marker{display:flex;align-items:center;justify-content:center;border-radius:50%;border:2px solid #fff;background:#0969da;color:#fff;font:600 13px/1 system-ui,sans-serif;box-shadow:0 1px 4px rgba(0,0,0,.4)}
.stop-marker[data-done='true']{background:#1a7f37}
.stop-marker[data-outside='true']{background:#cf222e;border-style:dashed}
`;

function ensureStyles() {
  if (document.querySelector('style[data-leaflet]')) return;
  const style = document.createElement('style');
  style.dataset.leaflet = '';
  style.textContent = leafletCss + STOP_CSS;
  document.head.appendChild(style);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type RangeOptions = Pick<MapViewOptions, 'texts' | 'centre' | 'radiusMetres' | 'tileUrl' | 'attribution'>;

/** A Leaflet map with the tiles (if any), the operation range and its centre. */
function rangeMap(element: HTMLElement, options: RangeOptions) {
  ensureStyles();
  const map = L.map(element, { attributionControl: Boolean(options.tileUrl), zoomControl: false, zoomSnap: 0.25 });
  const zoom = L.control.zoom().addTo(map);
  const setTexts = (texts: MapTexts) => {
    for (const [selector, title] of [
      ['.leaflet-control-zoom-in', texts.zoomIn],
      ['.leaflet-control-zoom-out', texts.zoomOut],
    ] as const) {
      const button = zoom.getContainer()?.querySelector(selector);
      button?.setAttribute('title', title);
      button?.setAttribute('aria-label', title);
    }
    map.attributionControl?.setPrefix(`<a href="https://leafletjs.com" title="${escapeHtml(texts.leafletTitle)}">Leaflet</a>`);
  };
  setTexts(options.texts);
  if (options.tileUrl) L.tileLayer(options.tileUrl, { attribution: escapeHtml(options.attribution), maxZoom: 19, crossOrigin: false }).addTo(map);
  const centre = L.latLng(options.centre.lat, options.centre.lng);
  // Layers are only projected on a map that has a view: give it one before adding them.
  map.setView(centre, 12);
  const range = L.circle(centre, { radius: options.radiusMetres, color: '#0969da', weight: 2, fillColor: '#0969da', fillOpacity: 0.06, interactive: false }).addTo(map);
  L.circleMarker(centre, { radius: 3, color: '#0969da', weight: 1, fillOpacity: 1, interactive: false }).addTo(map);
  return { map, range, setTexts };
}

export function createMapView(element: HTMLElement, options: MapViewOptions): MapView {
  const { map, range, setTexts } = rangeMap(element, options);
  let marker: L.CircleMarker | null = null;

  // Not animated: a map removed during a zoom animation (the page left at once) throws from Leaflet's
  // transition end ("reading '_leaflet_pos'"), which the layout sweep's quick navigation met (ADR 045).
  const fit = () => {
    const bounds = range.getBounds();
    if (marker) bounds.extend(marker.getLatLng());
    map.fitBounds(bounds, { padding: [16, 16], animate: false });
  };

  const place = (point: { lat: number; lng: number } | null) => {
    if (!point) {
      marker?.remove();
      marker = null;
      return null;
    }
    const at = L.latLng(point.lat, point.lng);
    if (marker) marker.setLatLng(at);
    else marker = L.circleMarker(at, { radius: 8, color: '#ffffff', weight: 2, fillColor: '#cf222e', fillOpacity: 1, interactive: false }).addTo(map);
    return at;
  };
  place(options.point);
  fit();

  const view: MapView = {
    setPoint(point) {
      const at = place(point);
      // Keep a point that lands outside the visible area in view (a searched address far away).
      if (at && !map.getBounds().contains(at)) fit();
    },
    setTexts,
    destroy() {
      map.remove();
    },
  };
  if (options.onPick) {
    const pick = options.onPick;
    element.style.cursor = 'crosshair';
    map.on('click', (event: L.LeafletMouseEvent) => pick({ lat: event.latlng.lat, lng: event.latlng.lng }));
  }
  return view;
}

export interface Stop {
  /** 1, 2, 3…: the stop's place in the day, shown on its marker and beside it in the list. */
  number: number;
  lat: number;
  lng: number;
  /** Read by screen readers and shown on hover: the number and the address. */
  title: string;
  outside: boolean;
  done: boolean;
}

export interface StopsMapView {
  setStops(stops: readonly Stop[]): void;
  setTexts(texts: MapTexts): void;
  destroy(): void;
}

/**
 * Where each stop's marker sits, in pixels from its point: 0,0 alone; stops at one place (to about a metre)
 * on a circle around it, far enough apart that the 28 px markers do not cover one another.
 */
export function spreadAtOnePlace(stops: readonly Pick<Stop, 'lat' | 'lng'>[]): [number, number][] {
  const key = (s: Pick<Stop, 'lat' | 'lng'>) => `${s.lat.toFixed(5)},${s.lng.toFixed(5)}`;
  const groups = new Map<string, number[]>();
  stops.forEach((stop, i) => groups.set(key(stop), [...(groups.get(key(stop)) ?? []), i]));
  const offsets: [number, number][] = stops.map(() => [0, 0]);
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    // The circle's circumference holds every marker with 4 px between them.
    const radius = Math.max(18, (members.length * 32) / (2 * Math.PI));
    members.forEach((index, k) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * k) / members.length;
      offsets[index] = [Math.round(radius * Math.cos(angle)), Math.round(radius * Math.sin(angle))];
    });
  }
  return offsets;
}

/** The range and a numbered marker per stop, fitted to show all of them (the Today page). */
export function createStopsMapView(element: HTMLElement, options: RangeOptions & { stops: readonly Stop[]; onStop?: (number: number) => void }): StopsMapView {
  const { map, range, setTexts } = rangeMap(element, options);
  const layer = L.layerGroup().addTo(map);
  const setStops = (stops: readonly Stop[]) => {
    layer.clearLayers();
    const bounds = range.getBounds();
    const spread = spreadAtOnePlace(stops);
    for (const [i, stop] of stops.entries()) {
      const at = L.latLng(stop.lat, stop.lng);
      const [dx, dy] = spread[i]!;
      const icon = L.divIcon({
        className: '',
        html: `<div class="stop-marker" data-outside="${stop.outside}" data-done="${stop.done}" style="width:24px;height:24px">${stop.number}</div>`,
        iconSize: [28, 28],
        // Stops at one address are set around it (issue 33), each whole and reachable, not one on top of the others.
        iconAnchor: [14 - dx, 14 - dy],
      });
      const marker = L.marker(at, { icon, title: stop.title, alt: stop.title, keyboard: true, riseOnHover: true }).addTo(layer);
      if (options.onStop) marker.on('click', () => options.onStop?.(stop.number));
      bounds.extend(at);
    }
    map.fitBounds(bounds, { padding: [28, 28], animate: false });
  };
  setStops(options.stops);
  return {
    setStops,
    setTexts,
    destroy() {
      map.remove();
    },
  };
}
