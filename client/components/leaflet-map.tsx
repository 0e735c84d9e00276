import { useCallback, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { usePublicConfig } from '../public-config.tsx';
import type { MapTexts, MapView } from './leaflet-map-view.ts';

/** Leaflet's own texts (zoom buttons, the attribution's link title) in the UI language, and a follower of its switch. */
export function useMapTexts(view: { current: { setTexts(texts: MapTexts): void } | null }): () => MapTexts {
  const { t, i18n } = useTranslation();
  const texts = () => ({ zoomIn: t('location.zoomIn'), zoomOut: t('location.zoomOut'), leafletTitle: t('location.leafletTitle') });
  useEffect(() => {
    view.current?.setTexts(texts());
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the texts change with the language only
  }, [i18n.language]);
  const latest = useRef(texts);
  latest.current = texts;
  return useCallback(() => latest.current(), []);
}

interface Props {
  point: { lat: number; lng: number } | null;
  /** Makes the map pick points on click. */
  onPick?: (point: { lat: number; lng: number }) => void;
  height?: number;
}

/**
 * A map of the operation range with one point (ADR 011). The server renders an empty frame of the same
 * size; Leaflet is loaded lazily in the browser, only where a map is shown.
 */
export function LeafletMap({ point, onPick, height = 280 }: Props) {
  const { t } = useTranslation();
  const { map: config } = usePublicConfig();
  const element = useRef<HTMLDivElement>(null);
  const view = useRef<MapView | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const editable = Boolean(onPick);
  const texts = useMapTexts(view);

  useEffect(() => {
    let cancelled = false;
    void import('./leaflet-map-view.ts').then(({ createMapView }) => {
      if (cancelled || !element.current) return;
      view.current = createMapView(element.current, {
        texts: texts(),
        centre: config.centre,
        radiusMetres: config.radiusMetres,
        tileUrl: config.tileUrl,
        attribution: config.tileAttribution,
        point,
        onPick: editable ? (p) => pick.current?.(p) : undefined,
      });
      element.current.dataset.ready = 'true';
    });
    return () => {
      cancelled = true;
      view.current?.destroy();
      view.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the map is created once per mount; the point follows below
  }, [config, editable, texts]);

  useEffect(() => {
    view.current?.setPoint(point);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the coordinates, not the object: a new object for the same place does not move the marker
  }, [point?.lat, point?.lng]);

  return (
    <div
      ref={element}
      data-testid="location-map"
      role="region"
      aria-label={t(editable ? 'location.mapPick' : 'location.map')}
      style={{
        height,
        width: '100%',
        borderRadius: 6,
        border: '1px solid var(--borderColor-default, #d0d7de)',
        background: 'var(--bgColor-muted, #f6f8fa)',
        zIndex: 0,
        position: 'relative',
      }}
    />
  );
}
