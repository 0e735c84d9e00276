import { Select, TextInput } from '../components/controls.tsx';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type EntityDef, type FieldDef, type ListParams } from '../../shared/entity/define.ts';
import { useListState } from './list-state.ts';
import { spriteIcon } from '../components/sprite-icon.tsx';
import './resource-list.css';
import { ReferencePicker } from './reference-choices.tsx';
// The card layout of a phone (ADR 021): static CSS, like the list's own.
import '../components/data-table.css';
import { FilterBar } from '../components/filter-bar.tsx';

const SearchIcon = spriteIcon('search');

/** A date input that shows what was typed at once, while the URL (the list state) follows. */
function DateFilterInput({ value, onChange, label, testId }: { value: string | undefined; onChange: (value: string | undefined) => void; label: string; testId: string }) {
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  return (
    <TextInput
      type="date"
      aria-label={label}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(e.target.value || undefined);
      }}
      data-testid={testId}
    />
  );
}

/** A from/to pair of date inputs for a `filter: 'range'` field. */
function RangeFilter({
  def,
  name,
  from,
  to,
  onChange,
}: {
  def: EntityDef;
  name: string;
  from: string | undefined;
  to: string | undefined;
  onChange: (changes: Record<string, string | undefined>) => void;
}) {
  const { t } = useTranslation();
  const label = t(`resources.${def.name}.fields.${name}`);
  return (
    <span className="bo-range" role="group" aria-label={label}>
      <span aria-hidden="true" style={{ fontSize: 14, color: 'var(--fgColor-muted)' }}>
        {label}
      </span>
      <DateFilterInput label={t('list.rangeFrom', { name: label })} value={from} onChange={(v) => onChange({ [`f_${name}_from`]: v })} testId={`filter-${name}-from`} />
      <span aria-hidden="true">–</span>
      <DateFilterInput label={t('list.rangeTo', { name: label })} value={to} onChange={(v) => onChange({ [`f_${name}_to`]: v })} testId={`filter-${name}-to`} />
    </span>
  );
}

function FilterSelect({
  def,
  name,
  field,
  value,
  onChange,
}: {
  def: EntityDef;
  name: string;
  field: FieldDef;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
}) {
  const { t } = useTranslation();
  const label = t(`resources.${def.name}.fields.${name}`);
  const all = t('list.filterAll', { name: label });
  // A reference filters by the referenced entity's choices (users by role, for buddies).
  if (field.kind === 'reference') {
    return (
      <ReferencePicker
        reference={field.reference!}
        value={value ? Number(value) : null}
        onChange={(v) => onChange(v === null ? undefined : String(v))}
        label={label}
        emptyLabel={all}
        name={name}
        testId={`filter-${name}`}
      />
    );
  }
  const choices =
    field.kind === 'boolean'
      ? [
          { value: 'true', label: t('common.yes') },
          { value: 'false', label: t('common.no') },
        ]
      : (field.options ?? []).map((o) => ({ value: String(o), label: t(`resources.${def.name}.options.${name}.${String(o)}`, { defaultValue: String(o) }) }));
  return (
    <Select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)} data-testid={`filter-${name}`}>
      <Select.Option value="">{all}</Select.Option>
      {choices.map((c) => (
        <Select.Option key={c.value} value={c.value}>
          {c.label}
        </Select.Option>
      ))}
    </Select>
  );
}

/** The search box's text, shown at once; the URL's `search` follows 300 ms after the last keystroke. */
function useSearchText(search: string | undefined, update: (changes: Record<string, string | undefined>) => void) {
  const [searchText, setSearchText] = useState(search ?? '');
  useEffect(() => setSearchText(search ?? ''), [search]);
  useEffect(() => {
    if ((searchText || undefined) === search) return;
    const timer = setTimeout(() => update({ search: searchText.trim() || undefined }), 300);
    return () => clearTimeout(timer);
  }, [searchText]); // eslint-disable-line react-hooks/exhaustive-deps
  return [searchText, setSearchText] as const;
}

/** The search box and a filter for each filterable field, all in the URL. */
export function ListFilters({
  def,
  fields,
  params,
  active,
  update,
}: {
  def: EntityDef;
  fields: [string, FieldDef][];
  params: ListParams;
  active: number;
  update: ReturnType<typeof useListState>['update'];
}) {
  const { t } = useTranslation();
  const [searchText, setSearchText] = useSearchText(params.search, update);
  return (
    <FilterBar
      active={active}
      search={
        <TextInput
          leadingVisual={SearchIcon}
          aria-label={t('list.search')}
          placeholder={t('list.search')}
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
          data-testid="list-search"
        />
      }
    >
      {fields.length > 0 &&
        fields.map(([key, field]) =>
          field.filter === 'range' ? (
            <RangeFilter
              key={key}
              def={def}
              name={key}
              from={params.filters[`${key}_from`] as string | undefined}
              to={params.filters[`${key}_to`] as string | undefined}
              onChange={(changes) => update(changes)}
            />
          ) : (
            <FilterSelect key={key} def={def} name={key} field={field} value={params.filters[key] as string | undefined} onChange={(v) => update({ [`f_${key}`]: v })} />
          ),
        )}
    </FilterBar>
  );
}
