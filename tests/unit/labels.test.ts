import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { serviceSlotsEntity } from '../../shared/entities/service-slots.ts';
import { serviceTypesEntity } from '../../shared/entities/service-types.ts';
import { checkDefinition } from '../../shared/entity/define-checks.ts';
import { defineEntity, labelFields, labelOf, labelSql, type EntityDef } from '../../shared/entity/define.ts';

describe('labels: one template per entity, read the same in JS and SQL', () => {
  it('formats a record with its fields, the language and hours-and-minutes', () => {
    expect(labelOf(bicyclesEntity, { brand_and_model: 'Crescent', serial_number: 'CR-1' })).toBe('Crescent (CR-1)');
    expect(labelOf(serviceTypesEntity, { name_en: 'Repair', name_sv: 'Reparation' }, 'sv')).toBe('Reparation');
    expect(labelOf(serviceTypesEntity, { name_en: 'Repair', name_sv: 'Reparation' })).toBe('Repair');
    expect(labelOf(serviceSlotsEntity, { name: 'Morning', start_time: '08:00:00', end_time: '12:00:00' })).toBe('Morning 08:00–12:00');
    // Missing values leave no "undefined" and no stray space at the ends.
    expect(labelOf({ label: '#{id} {user_id_label}' }, { id: 7 })).toBe('#7');
    // A date in the app's one date format per language (issue 33: a service's title was ISO).
    expect(labelOf({ label: '#{id} · {service_date|date}' }, { id: 5, service_date: '2026-03-05' }, 'en')).toBe('#5 · 5 Mar 2026');
    expect(labelOf({ label: '#{id} · {service_date|date}' }, { id: 5, service_date: '2026-03-05' }, 'sv')).toBe('#5 · 5 mars 2026');
  });

  it('builds the SQL the API selects and indexes (migration 053 indexes the bicycle label as this text)', () => {
    const sql = labelSql(bicyclesEntity.label, 'r');
    expect(sql).toBe("r.brand_and_model || ' (' || r.serial_number || ')'");
    const migration = readFileSync(new URL('../../upstream/migrations/053-reference-search-indexes.sql', import.meta.url), 'utf8');
    expect(migration).toContain(`lower(${sql.replaceAll('r.', '')})`);
    expect(labelSql(serviceSlotsEntity.label, 's')).toBe("s.name || ' ' || to_char(s.start_time, 'HH24:MI') || '–' || to_char(s.end_time, 'HH24:MI')");
    expect(labelSql("{name} O'Neil", 'r')).toBe("r.name || ' O''Neil'");
    expect(() => labelSql('{buddy_id_label}', 'r')).toThrow(/not a column/);
    expect(labelSql('{date|date}', 'r', 'sv')).toContain("(array['jan.','feb.','mars',");
  });

  it('names only fields of the entity (or a reference’s label, or the id)', () => {
    for (const def of ENTITIES as readonly EntityDef[]) {
      for (const key of labelFields(def.label)) {
        const known = key === 'id' || key in def.fields || def.fields[key.replace(/_label$/, '')]?.kind === 'reference';
        expect(known, `${def.name}: ${key}`).toBe(true);
      }
    }
    expect(() => checkDefinition(defineEntity({ name: 'x', route: '/roles', table: 'x', defaultSort: 'id', label: '{nope}', fields: { name: { kind: 'text' } } }))).toThrow(
      /unknown field nope/,
    );
  });
});
