import { Button, Dialog, Flash, Heading, IconButton, Select, Spinner, TextInput } from '@primer/react';
import { PencilIcon, PlusIcon, SearchIcon, TrashIcon, TriangleDownIcon, TriangleUpIcon } from '@primer/octicons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { FieldValue } from './field-value.tsx';
import { useListState } from './list-state.ts';
import { ResourceForm } from './resource-form.tsx';
import { CsvExportButton } from './csv-export.tsx';
import { Pager } from '../components/pager.tsx';

const Bar = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  align-items: center;
  margin: 16px 0;
`;

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: 14px;
  th,
  td {
    text-align: left;
    padding: 8px 10px;
    border-bottom: 1px solid var(--borderColor-muted, #d8dee4);
    vertical-align: middle;
  }
  th {
    font-weight: 600;
    background: var(--bgColor-muted, #f6f8fa);
    white-space: nowrap;
  }
  tbody tr:hover {
    background: var(--bgColor-muted, #f6f8fa);
  }
`;

const SortButton = styled.button`
  all: unset;
  cursor: pointer;
  display: inline-flex;
  align-items: center;
  gap: 4px;
  &:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
  }
`;


function columns(def: EntityDef): [string, FieldDef][] {
  return Object.entries(def.fields).filter(([, f]) => f.list && !f.hidden);
}

function FilterSelect({ def, name, field, value, onChange }: { def: EntityDef; name: string; field: FieldDef; value: string | undefined; onChange: (v: string | undefined) => void }) {
  const { t } = useTranslation();
  const target = field.kind === 'reference' ? entityByName(field.reference!.entity) : undefined;
  const options = entityApi(target ?? def).options.useQuery({}, { enabled: field.kind === 'reference' });
  const label = t(`resources.${def.name}.fields.${name}`);
  let choices: { value: string; label: string }[] = [];
  if (field.kind === 'boolean') choices = [{ value: 'true', label: t('common.yes') }, { value: 'false', label: t('common.no') }];
  else if (field.kind === 'enum') choices = (field.options ?? []).map((o) => ({ value: String(o), label: t(`resources.${def.name}.options.${name}.${String(o)}`, { defaultValue: String(o) }) }));
  else if (field.kind === 'reference') choices = (options.data ?? []).map((o) => ({ value: String(o.id), label: o.label }));
  return (
    <Select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)} data-testid={`filter-${name}`}>
      <Select.Option value="">{t('list.filterAll', { name: label })}</Select.Option>
      {choices.map((c) => (
        <Select.Option key={c.value} value={c.value}>
          {c.label}
        </Select.Option>
      ))}
    </Select>
  );
}

/** The generic list screen: search, filters, sorting, paging, all in the URL; create/edit/delete. */
export function ResourceListPage({ def }: { def: EntityDef }) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const navigate = useNavigate();
  const { params, update } = useListState(def);
  const api = entityApi(def);
  const utils = useEntityUtils(def);
  const list = api.list.useQuery(params);
  const remove = api.delete.useMutation();
  const [searchText, setSearchText] = useState(params.search ?? '');
  const [editing, setEditing] = useState<EntityRecord | 'new' | null>(null);
  const title = t(`resources.${def.name}.name`);
  const one = t(`resources.${def.name}.one`);

  useEffect(() => setSearchText(params.search ?? ''), [params.search]);
  useEffect(() => {
    if ((searchText || undefined) === params.search) return;
    const timer = setTimeout(() => update({ search: searchText.trim() || undefined }), 300);
    return () => clearTimeout(timer);
  }, [searchText]); // eslint-disable-line react-hooks/exhaustive-deps

  const open = (record: EntityRecord | 'new') => {
    if (def.detailRoute) navigate(def.detailRoute.replace(':id', record === 'new' ? 'new' : String(record.id)));
    else setEditing(record);
  };

  const onDelete = async (record: EntityRecord) => {
    if (!(await confirm({ message: t('form.deleteConfirm', { name: def.label(record) }), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: record.id });
      await utils.list.invalidate();
      toast.success(t('form.deleted', { name: def.label(record) }));
    } catch (error) {
      toast.error(errorText(t, error));
    }
  };

  const sortBy = (key: string) => {
    const current = params.ordering;
    update({ ordering: current === key ? `-${key}` : key });
  };

  const data = list.data;
  const cols = columns(def);
  const filterFields = Object.entries(def.fields).filter(([, f]) => f.filter);

  return (
    <section>
      <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 8 }}>
        <Heading as="h1">{title}</Heading>
        <div style={{ display: 'flex', gap: 8 }}>
          {def.exportable && <CsvExportButton def={def} params={params} />}
          <Button variant="primary" leadingVisual={PlusIcon} onClick={() => open('new')} data-testid="list-new">
            {t('list.new', { name: one })}
          </Button>
        </div>
      </div>
      <Bar role="search">
        <TextInput
          leadingVisual={SearchIcon}
          aria-label={t('list.search')}
          placeholder={t('list.search')}
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
          data-testid="list-search"
        />
        {filterFields.map(([key, field]) => (
          <FilterSelect key={key} def={def} name={key} field={field} value={params.filters[key] as string | undefined} onChange={(v) => update({ [`f_${key}`]: v })} />
        ))}
      </Bar>

      {list.error ? (
        <Flash variant="danger" role="alert" data-testid="list-error">
          {errorText(t, list.error)}{' '}
          <Button size="small" onClick={() => void list.refetch()}>
            {t('errors.retry')}
          </Button>
        </Flash>
      ) : !data ? (
        <div role="status" style={{ display: 'flex', gap: 8, alignItems: 'center', padding: 16 }} data-testid="list-loading">
          <Spinner size="small" srText={null} /> {t('app.loading')}
        </div>
      ) : data.results.length === 0 ? (
        <p data-testid="list-empty" style={{ padding: 24, textAlign: 'center', color: 'var(--fgColor-muted)' }}>
          {params.search || Object.keys(params.filters).length ? t('list.noMatches') : t('list.empty', { name: title })}
        </p>
      ) : (
        <div style={{ overflowX: 'auto' }}>
          <Table data-testid="list-table">
            <thead>
              <tr>
                {cols.map(([key, field]) => {
                  const label = t(`resources.${def.name}.fields.${key}`);
                  const sorted = params.ordering === key ? 'ascending' : params.ordering === `-${key}` ? 'descending' : undefined;
                  return (
                    <th key={key} aria-sort={sorted ?? 'none'} scope="col">
                      {field.sortable ? (
                        <SortButton type="button" onClick={() => sortBy(key)} data-testid={`sort-${key}`}>
                          {label}
                          {sorted === 'ascending' ? <TriangleUpIcon /> : sorted === 'descending' ? <TriangleDownIcon /> : null}
                        </SortButton>
                      ) : (
                        label
                      )}
                    </th>
                  );
                })}
                <th scope="col">
                  <span className="visually-hidden">{t('list.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.results.map((record) => (
                <tr key={record.id}>
                  {cols.map(([key, field], index) => (
                    <td key={key}>
                      {index === 0 && def.detailRoute ? (
                        <Link to={def.detailRoute.replace(':id', String(record.id))}>
                          <FieldValue def={def} name={key} field={field} record={record} />
                        </Link>
                      ) : (
                        <FieldValue def={def} name={key} field={field} record={record} />
                      )}
                    </td>
                  ))}
                  <td style={{ whiteSpace: 'nowrap', textAlign: 'right' }}>
                    <IconButton icon={PencilIcon} aria-label={t('list.edit', { name: def.label(record) })} variant="invisible" size="small" onClick={() => open(record)} />
                    <IconButton icon={TrashIcon} aria-label={t('list.delete', { name: def.label(record) })} variant="invisible" size="small" onClick={() => void onDelete(record)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}

      {data && <Pager paginator={data.paginator} onPage={(page) => update({ page }, false)} onPageSize={(size) => update({ page_size: size })} />}

      {editing && (
        <Dialog title={editing === 'new' ? t('list.new', { name: one }) : t('list.editTitle', { name: def.label(editing) })} onClose={() => setEditing(null)} width="large">
          <ResourceForm key={editing === 'new' ? 'new' : editing.version} def={def} record={editing === 'new' ? null : editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
        </Dialog>
      )}
    </section>
  );
}
