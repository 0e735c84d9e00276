import { Button, FormControl, Label, TextInput } from '@primer/react';
import { SearchIcon } from '@primer/octicons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EntityDef, LocationFields } from '../../shared/entity/define.ts';
import { distanceMetres, isWithinRange } from '../../shared/geo.ts';
import type { GeocodeResult } from '../../shared/schemas/services.ts';
import { errorText, fieldText } from '../errors.ts';
import { usePublicConfig } from '../public-config.tsx';
import { trpc } from '../trpc.ts';
import { LeafletMap } from './leaflet-map.tsx';
import { formatNumber } from '../../shared/format.ts';

interface Props {
  def: EntityDef;
  location: LocationFields;
  values: Record<string, unknown>;
  errors: Record<string, string>;
  required?: boolean;
  onChange: (patch: Record<string, unknown>) => void;
}

const toNumber = (value: unknown) => (value === null || value === undefined || value === '' ? null : Number(value));
const ROUND = 1e7;
const round = (n: number) => Math.round(n * ROUND) / ROUND;

/** The point of a location, if both coordinates are numbers. */
export function pointOf(location: LocationFields, values: Record<string, unknown>): { lat: number; lng: number } | null {
  const lat = toNumber(values[location.latitude]);
  const lng = toNumber(values[location.longitude]);
  return lat !== null && lng !== null && Number.isFinite(lat) && Number.isFinite(lng) ? { lat, lng } : null;
}

/**
 * A place: search an address (when a geocoder is configured), or click the map, or type the
 * coordinates. The map shows the operation range; a point outside it is refused here at once and by the
 * API (§5 'Please enter a valid address.').
 */
export function LocationInput({ def, location, values, errors, required, onChange }: Props) {
  const { t, i18n } = useTranslation();
  const { map } = usePublicConfig();
  const utils = trpc.useUtils();
  const point = pointOf(location, values);
  const outside = Boolean(location.withinOperationRange && point && !isWithinRange(map, point));
  const label = (field: string) => t(`resources.${def.name}.fields.${field}`);
  const message = fieldText(t, errors[location.latitude] ?? errors[location.longitude] ?? errors[location.address] ?? (outside ? 'validation.invalidAddress' : undefined));
  const km = (metres: number) => formatNumber(metres / 1000, i18n.language, { maximumFractionDigits: 1 });

  const pick = async (p: { lat: number; lng: number }) => {
    onChange({ [location.latitude]: round(p.lat), [location.longitude]: round(p.lng) });
    // A clicked point gets an address when a geocoder can name it and none has been typed.
    if (map.geocoding && !values[location.address]) {
      const found = await utils.geo.reverse.fetch({ lat: round(p.lat), lng: round(p.lng) }).catch(() => null);
      if (found) onChange({ [location.address]: found.label.slice(0, 255) });
    }
  };

  return (
    <fieldset data-testid="location-input" style={{ border: 0, padding: 0, margin: 0, display: 'grid', gap: 12, minWidth: 0 }}>
      <legend style={{ fontWeight: 600, fontSize: 14, marginBottom: 8, padding: 0 }}>
        {t('location.title')}
        {required && <span aria-hidden="true"> *</span>}
      </legend>
      {map.geocoding && (
        <AddressSearch onChoose={(r) => onChange({ [location.address]: r.label.slice(0, 255), [location.latitude]: round(r.lat), [location.longitude]: round(r.lng) })} />
      )}
      <FormControl>
        <FormControl.Label>{label(location.address)}</FormControl.Label>
        <TextInput
          name={location.address}
          value={(values[location.address] as string | null) ?? ''}
          onChange={(e) => onChange({ [location.address]: e.target.value })}
          block
          data-field={location.address}
        />
      </FormControl>
      <LeafletMap point={point} onPick={(p) => void pick(p)} />
      <span style={{ fontSize: 12, color: 'var(--fgColor-muted)' }}>{t(map.geocoding ? 'location.helpWithSearch' : 'location.help')}</span>
      <CoordinateInputs keys={[location.latitude, location.longitude]} label={label} values={values} invalid={Boolean(message)} required={required} onChange={onChange} />
      <div aria-live="polite" data-testid="location-status" style={{ fontSize: 13 }}>
        {message ? (
          <span role="alert" style={{ color: 'var(--fgColor-danger, #d1242f)' }} data-testid="location-error">
            {message}
          </span>
        ) : point ? (
          <span style={{ color: 'var(--fgColor-muted)' }}>{t('location.distance', { km: km(distanceMetres(map.centre, point)), radius: km(map.radiusMetres) })}</span>
        ) : null}
      </div>
    </fieldset>
  );
}

/** The geocoder's search state: the query, its results (with whether each lies in the range), an error and whether it runs. */
function useAddressSearch() {
  const { t } = useTranslation();
  const utils = trpc.useUtils();
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<(GeocodeResult & { inRange: boolean })[] | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);

  const search = async () => {
    if (query.trim().length < 3) return;
    setSearching(true);
    setSearchError(null);
    try {
      setResults(await utils.geo.search.fetch({ query: query.trim() }));
    } catch (error) {
      setResults(null);
      setSearchError(errorText(t, error));
    } finally {
      setSearching(false);
    }
  };

  return { query, setQuery, results, setResults, searchError, searching, search };
}

/** Address search (with a geocoder): a query field, and the places found to choose from. */
function AddressSearch({ onChoose }: { onChoose: (result: GeocodeResult) => void }) {
  const { t } = useTranslation();
  const { query, setQuery, results, setResults, searchError, searching, search } = useAddressSearch();
  return (
    <div style={{ display: 'grid', gap: 8 }}>
      <div style={{ display: 'flex', gap: 8 }}>
        <div style={{ flex: 1, minWidth: 0 }}>
          <TextInput
            aria-label={t('location.search')}
            placeholder={t('location.searchPlaceholder')}
            leadingVisual={SearchIcon}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              // Enter searches instead of submitting the surrounding form.
              if (e.key === 'Enter') {
                e.preventDefault();
                void search();
              }
            }}
            block
            data-testid="location-search"
          />
        </div>
        <Button type="button" onClick={() => void search()} loading={searching} data-testid="location-search-button">
          {t('location.searchButton')}
        </Button>
      </div>
      {searchError && (
        <span role="alert" style={{ color: 'var(--fgColor-danger)', fontSize: 13 }}>
          {searchError}
        </span>
      )}
      {results && (
        <ul aria-label={t('location.results')} data-testid="location-results" style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 4 }}>
          {results.length === 0 && <li style={{ color: 'var(--fgColor-muted)', fontSize: 13 }}>{t('location.noResults')}</li>}
          {results.map((r) => (
            <li key={`${r.lat},${r.lng},${r.label}`}>
              <Button
                type="button"
                variant="invisible"
                size="small"
                style={{ textAlign: 'left', height: 'auto', whiteSpace: 'normal', padding: '4px 8px' }}
                onClick={() => {
                  onChoose(r);
                  setResults(null);
                }}
              >
                {r.label} {!r.inRange && <Label variant="danger">{t('location.outsideRange')}</Label>}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

interface CoordinateInputsProps {
  keys: string[];
  label: (field: string) => string;
  values: Record<string, unknown>;
  invalid: boolean;
  required?: boolean;
  onChange: (patch: Record<string, unknown>) => void;
}

/** The latitude and longitude typed as numbers. */
function CoordinateInputs({ keys, label, values, invalid, required, onChange }: CoordinateInputsProps) {
  return (
    <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(160px, 1fr))', gap: 12 }}>
      {keys.map((key) => (
        <FormControl key={key} required={required}>
          <FormControl.Label>{label(key)}</FormControl.Label>
          <TextInput
            name={key}
            type="number"
            step="any"
            value={values[key] === null || values[key] === undefined ? '' : String(values[key])}
            onChange={(e) => onChange({ [key]: e.target.value === '' ? null : e.target.value })}
            block
            validationStatus={invalid ? 'error' : undefined}
            data-field={key}
          />
        </FormControl>
      ))}
    </div>
  );
}

/** A location read-only: the address and the point on the map. */
export function LocationView({ location, values }: { location: LocationFields; values: Record<string, unknown> }) {
  const point = pointOf(location, values);
  return (
    <div style={{ display: 'grid', gap: 8 }} data-testid="location-view">
      {values[location.address] ? <span>{String(values[location.address])}</span> : null}
      <LeafletMap point={point} height={220} />
    </div>
  );
}
