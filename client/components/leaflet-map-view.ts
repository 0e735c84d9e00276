import L from 'leaflet';
import leafletCss from 'leaflet/dist/leaflet.css?inline';

/**
 * The imperative Leaflet part of LeafletMap, in its own chunk: it (and Leaflet's CSS) loads only when a
 * page shows a map (ADR 011). Everything is drawn as vector layers, so the range circle, the centre and
 * the chosen point show — and clicks pick points — even when no tiles load (no tile URL, no internet).
 */
export interface MapViewOptions {
  centre: { lat: number; lng: number };
  radiusMetres: number;
  tileUrl: string | null;
  attribution: string;
  point: { lat: number; lng: number } | null;
  onPick?: (point: { lat: number; lng: number }) => void;
}

export interface MapView {
  setPoint(point: { lat: number; lng: number } | null): void;
  destroy(): void;
}

function ensureStyles() {
  if (document.querySelector('style[data-leaflet]')) return;
  const style = document.createElement('style');
  style.dataset.leaflet = '';
  style.textContent = leafletCss;
  document.head.appendChild(style);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function createMapView(element: HTMLElement, options: MapViewOptions): MapView {
  ensureStyles();
  const map = L.map(element, { attributionControl: Boolean(options.tileUrl), zoomSnap: 0.25 });
  if (options.tileUrl) L.tileLayer(options.tileUrl, { attribution: escapeHtml(options.attribution), maxZoom: 19, crossOrigin: false }).addTo(map);
  const centre = L.latLng(options.centre.lat, options.centre.lng);
  // Layers are only projected on a map that has a view: give it one before adding them.
  map.setView(centre, 12);
  const range = L.circle(centre, { radius: options.radiusMetres, color: '#0969da', weight: 2, fillColor: '#0969da', fillOpacity: 0.06, interactive: false }).addTo(map);
  L.circleMarker(centre, { radius: 3, color: '#0969da', weight: 1, fillOpacity: 1, interactive: false }).addTo(map);
  let marker: L.CircleMarker | null = null;

  const fit = () => {
    const bounds = range.getBounds();
    if (marker) bounds.extend(marker.getLatLng());
    map.fitBounds(bounds, { padding: [16, 16] });
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
