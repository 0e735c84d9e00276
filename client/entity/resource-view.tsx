import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import { LocationView } from '../components/location-input.tsx';
import { FieldValue } from './field-value.tsx';

const List = styled.dl`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(220px, 1fr));
  gap: 16px 24px;
  margin: 0;
  div {
    min-width: 0;
  }
  dt {
    font-size: 12px;
    font-weight: 600;
    color: var(--fgColor-muted, #59636e);
    margin-bottom: 4px;
  }
  dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
`;

/**
 * A record read-only, for users who may see but not change it (a Buddy's service). `print`: the copy a
 * record page prints instead of its form (issue 33, client/styles.css `@media print`), the address as text.
 */
export function ResourceView({ def, record, print = false }: { def: EntityDef; record: EntityRecord; print?: boolean }) {
  const { t } = useTranslation();
  const location = def.location;
  const coordinates = new Set(location ? [location.latitude, location.longitude] : []);
  return (
    <List data-testid={print ? `print-view-${def.name}` : `view-${def.name}`} className={print ? 'print-only' : undefined}>
      {Object.entries(def.fields)
        .filter(([key, field]) => !field.hidden && !coordinates.has(key))
        .map(([key, field]) => (
          <div key={key} style={location && key === location.address ? { gridColumn: '1 / -1' } : undefined}>
            <dt>{t(location && key === location.address ? 'location.title' : `resources.${def.name}.fields.${key}`)}</dt>
            <dd data-field={key}>
              {location && key === location.address ? (
                print ? (
                  String(record[key] ?? '—')
                ) : (
                  <LocationView location={location} values={record} />
                )
              ) : (
                <FieldValue def={def} name={key} field={field} record={record} />
              )}
            </dd>
          </div>
        ))}
    </List>
  );
}
