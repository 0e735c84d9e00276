import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePublicConfig } from '../public-config.tsx';
import { useMapTexts } from './leaflet-map.tsx';
import type { Stop, StopsMapView } from './leaflet-map-view.ts';

export type { Stop };

/**
 * The operation range with a numbered marker per stop (ADR 011, 021). The server renders an empty frame
 * of the same size; Leaflet is downloaded only when the frame comes near the screen, so a phone that
 * opens its list of stops does not pay for a map below it until it scrolls there.
 */
export function StopsMap({ stops, onStop, height = 320 }: { stops: readonly Stop[]; onStop?: (number: number) => void; height?: number }) {
  const { t } = useTranslation();
  const { map: config } = usePublicConfig();
  const element = useRef<HTMLDivElement>(null);
  const view = useRef<StopsMapView | null>(null);
  const texts = useMapTexts(view);
  const latest = useRef({ stops, onStop });
  latest.current = { stops, onStop };
  const [near, setNear] = useState(false);

  useEffect(() => {
    const el = element.current;
    if (!el) return;
    if (typeof IntersectionObserver === 'undefined') return setNear(true);
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setNear(true);
          observer.disconnect();
        }
      },
      { rootMargin: '200px' },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (!near) return;
    let cancelled = false;
    void import('./leaflet-map-view.ts').then(({ createStopsMapView }) => {
      if (cancelled || !element.current) return;
      view.current = createStopsMapView(element.current, {
        texts: texts(),
        centre: config.centre,
        radiusMetres: config.radiusMetres,
        tileUrl: config.tileUrl,
        attribution: config.tileAttribution,
        stops: latest.current.stops,
        onStop: (n) => latest.current.onStop?.(n),
      });
      element.current.dataset.ready = 'true';
    });
    return () => {
      cancelled = true;
      view.current?.destroy();
      view.current = null;
    };
  }, [near, config, texts]);

  const signature = stops.map((s) => `${s.number}:${s.lat}:${s.lng}:${s.outside}:${s.done}:${s.title}`).join('|');
  useEffect(() => {
    view.current?.setStops(latest.current.stops);
  }, [signature]);

  return (
    <div
      ref={element}
      id="today-map"
      data-testid="stops-map"
      role="region"
      aria-label={t('today.map')}
      style={{
        height,
        width: '100%',
        borderRadius: 8,
        border: '1px solid var(--borderColor-default, #d0d7de)',
        background: 'var(--bgColor-muted, #f6f8fa)',
        zIndex: 0,
        position: 'relative',
      }}
    />
  );
}
