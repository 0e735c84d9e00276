import { Button, Checkbox, FormControl, Heading, Label, Link as PrimerLink, Select } from '@primer/react';
import { XIcon } from '@primer/octicons-react';
import { useEffect, useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import styled from 'styled-components';
import { ROLE } from '../../shared/roles.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { labelOf } from '../../shared/entity/define.ts';
import { seededText } from '../entity/seeded-names.ts';
import { USER_TYPES, userUpdateFields } from '../../shared/schemas/users.ts';
import type { UserDetail } from '../../shared/entities/users.ts';
import { usersEntity } from '../../shared/entities/users.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { ChoiceField, CountryField, LanguageField } from '../components/choice-field.tsx';
import { ErrorState } from '../components/error-state.tsx';
import { ConflictNotice } from '../entity/conflict-notice.tsx';
import { useEditConflicts, type EditConflicts } from '../entity/edit-conflict.ts';
import { RecordActions } from '../entity/record-actions.tsx';
import { WithHistoryTab } from '../entity/history-tab.tsx';
import { invitationTestId } from './user-invitations.ts';
import { ProfilePictureField } from '../components/image-upload.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { TextField } from '../components/text-field.tsx';
import { useUnsavedChangesGuard } from '../components/use-unsaved-guard.ts';
import { useZodForm } from '../components/use-zod-form.ts';
import { RelatedServices } from '../components/related-services.tsx';
import { appCodeOf, errorText, fieldText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { SubscriptionsList } from './subscriptions-list.tsx';
import { useRoleNames } from './use-role-names.ts';

const Grid = styled.form`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(240px, 1fr));
  gap: 16px;
`;

function formValues(u: UserDetail) {
  return {
    first_name: u.first_name ?? '',
    last_name: u.last_name ?? '',
    phone_number: u.phone_number ?? '',
    country: (u.country as 'gb' | 'se' | null) ?? null,
    language: (u.language as 'en' | 'sv' | null) ?? null,
    is_active: u.is_active,
    profile_image: u.profile_image ?? null,
    user_type: u.user_type as 1 | 2 | 4 | 5,
    biography: u.biography ?? '',
    social_security_number: u.social_security_number ?? '',
    state: u.state ?? '',
    area: u.area ?? '',
    city: u.city ?? '',
    post_code: u.post_code ?? '',
  };
}

/** A user's name as the confirmations say it. */
const nameOf = (u: UserDetail) => [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email;

type UserFormState = ReturnType<typeof useZodForm<typeof userUpdateFields>>;

/**
 * The form's state and the record version its edits are based on: a newer version (another admin's save,
 * another tab's) is merged with the edits field by field, as in every engine form (ADR 063).
 */
function useUserForm(record: EntityRecord) {
  const valuesOf = (from: EntityRecord | null) => formValues((from ?? record) as unknown as UserDetail);
  const form = useZodForm(userUpdateFields, valuesOf(record));
  const conflicts = useEditConflicts({ entity: 'users', record, valuesOf, values: form.values, setValues: form.setValues });
  useUnsavedChangesGuard(conflicts.dirty);
  return { form, conflicts };
}

/** Saving the form: a deactivation asked first, the record as saved in the cache, a stale save merged with the edits. */
function useUserSave(user: UserDetail, form: UserFormState, conflicts: EditConflicts) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = trpc.useUtils();
  const update = trpc.users.update.useMutation();
  const fetchFresh = async () => {
    await utils.users.get.invalidate({ id: user.id });
    return utils.users.get.fetch({ id: user.id });
  };
  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!conflicts.maySave()) return;
    const data = form.validate();
    // Never silent: every field message is shown beside its field, and the toast says why nothing was saved.
    if (!data) return toast.error((t) => t('errors.validation_error'));
    // Deactivating locks the person out: ask before sending (issue 13).
    if (
      user.is_active &&
      !data.is_active &&
      !(await confirm({ title: t('userConfirm.deactivateTitle'), message: t('userConfirm.deactivate', { name: nameOf(user) }), danger: true }))
    )
      return;
    try {
      const saved = await update.mutateAsync({ id: user.id, version: Number(conflicts.base?.version ?? user.version), data });
      conflicts.reset(saved);
      utils.users.get.setData({ id: user.id }, saved);
      await utils.users.list.invalidate();
      toast.success((t) => t('form.saved', { name: user.email }));
    } catch (error) {
      // Saved by someone else first: their version merged with the edits, nothing lost or overwritten.
      if (appCodeOf(error) === 'conflict') conflicts.refusedWith(await fetchFresh());
      else {
        form.applyServerError(error);
        toast.error((t) => errorText(t, error));
      }
    }
  };
  return { onSubmit, saving: update.isPending, reload: async () => conflicts.reset(await fetchFresh()) };
}

function UserForm({ record }: { record: EntityRecord }) {
  const { t } = useTranslation();
  const { form, conflicts } = useUserForm(record);
  const user = (conflicts.base ?? record) as unknown as UserDetail;
  const { onSubmit, saving, reload } = useUserSave(user, form, conflicts);
  const text = (key: 'first_name' | 'last_name' | 'phone_number' | 'social_security_number' | 'state' | 'area' | 'city' | 'post_code') => (
    <TextField name={key} label={t(`users.fields.${key}`)} value={form.values[key] as string} onChange={(v) => form.set(key, v)} error={form.errors[key]} />
  );
  return (
    <Grid noValidate data-testid="user-form" onSubmit={onSubmit}>
      <ConflictNotice def={usersEntity} conflicts={conflicts} onReload={() => void reload()} />
      <div style={{ gridColumn: '1 / -1' }}>
        <ProfilePictureField value={form.values.profile_image} onChange={(url) => form.set('profile_image', url)} error={fieldText(t, form.errors.profile_image)} />
      </div>
      {text('first_name')}
      {text('last_name')}
      {text('phone_number')}
      {text('social_security_number')}
      <ChoiceField
        label={t('users.fields.user_type')}
        value={form.values.user_type}
        options={USER_TYPES}
        optionLabel={(type) => t(`users.types.${type}`)}
        nullable={false}
        onChange={(v) => v && form.set('user_type', v)}
        error={form.errors.user_type}
      />
      <CountryField label={t('users.fields.country')} value={form.values.country} onChange={(v) => form.set('country', v)} error={form.errors.country} />
      <LanguageField label={t('users.fields.language')} value={form.values.language} onChange={(v) => form.set('language', v)} error={form.errors.language} />
      {text('city')}
      {text('area')}
      {text('state')}
      {text('post_code')}
      <div style={{ gridColumn: '1 / -1' }}>
        <TextField
          name="biography"
          label={t('users.fields.biography')}
          value={form.values.biography as string}
          onChange={(v) => form.set('biography', v)}
          error={form.errors.biography}
          multiline
        />
      </div>
      <FormControl>
        <Checkbox checked={form.values.is_active} onChange={(e) => form.set('is_active', e.target.checked)} />
        <FormControl.Label>{t('users.fields.is_active')}</FormControl.Label>
        {form.errors.is_active && <FormControl.Validation variant="error">{fieldText(t, form.errors.is_active)}</FormControl.Validation>}
      </FormControl>
      <div style={{ gridColumn: '1 / -1' }}>
        <Button type="submit" variant="primary" loading={saving} data-testid="user-save">
          {t('form.save')}
        </Button>
      </div>
    </Grid>
  );
}

/**
 * Saves one link change at once: the user as answered goes into the cache, a toast confirms — its text a function of
 * `t`, written when drawn, so it follows a language switch (ADR 078); `onFail` puts the screen back.
 */
function useLinkSaver(user: UserDetail, onFail?: () => void) {
  const toast = useToast();
  const utils = trpc.useUtils();
  return async (call: Promise<unknown>, message: (t: TFunction) => string) => {
    try {
      utils.users.get.setData({ id: user.id }, (await call) as EntityRecord);
      toast.success(message);
    } catch (error) {
      onFail?.();
      toast.error((t) => errorText(t, error));
    }
  };
}

const LinkHeading = ({ children }: { children: string }) => (
  <Heading as="h2" style={{ fontSize: 16, marginBottom: 8 }}>
    {children}
  </Heading>
);

/** The roles, as checkboxes that answer at once; a failed save puts them back. */
function RoleLinks({ user }: { user: UserDetail }) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const addRole = trpc.users.roles.add.useMutation();
  const removeRole = trpc.users.roles.remove.useMutation();
  const [roles, setRoles] = useState(user.roles);
  const roleNames = useRoleNames();
  useEffect(() => setRoles(user.roles), [user.roles]);
  const save = useLinkSaver(user, () => setRoles(user.roles));
  return (
    <div>
      <LinkHeading>{t('users.fields.roles')}</LinkHeading>
      <div style={{ display: 'flex', gap: 16 }} data-testid="user-roles">
        {roleNames.map((role) => (
          <FormControl key={role}>
            <Checkbox
              checked={roles.includes(role)}
              onChange={async (e) => {
                const adding = e.target.checked;
                // Taking a role away takes screens away from the person: ask first (issue 13).
                if (
                  !adding &&
                  !(await confirm({
                    title: t('userConfirm.removeRoleTitle'),
                    message: t('userConfirm.removeRole', { role: seededText(t, 'roles', role), name: nameOf(user) }),
                    danger: true,
                  }))
                )
                  return;
                setRoles(adding ? [...roles, role] : roles.filter((r) => r !== role));
                const call = adding ? addRole.mutateAsync({ id: user.id, role }) : removeRole.mutateAsync({ id: user.id, key: role });
                void save(call, (t) => t(adding ? 'users.roleAdded' : 'users.roleRemoved', { role: seededText(t, 'roles', role) }));
              }}
            />
            <FormControl.Label>{seededText(t, 'roles', role)}</FormControl.Label>
          </FormControl>
        ))}
      </div>
    </div>
  );
}

/** The operational range: chosen or cleared on its own (§2). */
function RangeLink({ user }: { user: UserDetail }) {
  const { t } = useTranslation();
  const ranges = trpc.operationalRanges.options.useQuery({});
  const setRange = trpc.users.setOperationalRange.useMutation();
  const save = useLinkSaver(user);
  return (
    <div>
      <LinkHeading>{t('users.fields.operational_range')}</LinkHeading>
      <Select
        aria-label={t('users.fields.operational_range')}
        value={user.operational_range_id ? String(user.operational_range_id) : ''}
        onChange={(e) => {
          const id = e.target.value ? Number(e.target.value) : null;
          const name = ranges.data?.find((r) => r.id === id)?.label ?? '';
          void save(setRange.mutateAsync({ id: user.id, operational_range_id: id }), (t) =>
            id ? t('users.rangeSet', { name: seededText(t, 'operational-ranges', name) }) : t('users.rangeCleared'),
          );
        }}
        data-testid="operational-range"
      >
        <Select.Option value="">{t('profile.none')}</Select.Option>
        {(ranges.data ?? []).map((r) => (
          <Select.Option key={r.id} value={String(r.id)}>
            {seededText(t, 'operational-ranges', r.label)}
          </Select.Option>
        ))}
      </Select>
    </div>
  );
}

interface ChipLinksProps {
  title: string;
  /** The catalogue the chips are entries of (its seeded names read in the UI language, ADR 078). */
  entity: string;
  items: { id: number; name: string }[];
  options: { id: number; label: string }[] | undefined;
  pickLabel: string;
  onAdd: (id: number) => Promise<unknown>;
  onRemove: (id: number) => Promise<unknown>;
  save: ReturnType<typeof useLinkSaver>;
  testId: string;
}

/** Languages or competencies: chips with a remove button, and a select adding one more. */
function ChipLinks({ title, entity, items, options, pickLabel, onAdd, onRemove, save, testId }: ChipLinksProps) {
  const { t } = useTranslation();
  const taken = items.map((item) => item.id);
  const shown = (text: string) => seededText(t, entity, text);
  return (
    <div>
      <LinkHeading>{title}</LinkHeading>
      {items.map((item) => (
        <Label key={item.id} style={{ marginRight: 6 }}>
          {shown(item.name)}{' '}
          <button
            type="button"
            aria-label={t('users.removeLink', { name: shown(item.name) })}
            onClick={() => void save(onRemove(item.id), (t) => t('users.linkRemoved', { name: seededText(t, entity, item.name) }))}
            style={{ border: 0, background: 'none', cursor: 'pointer', padding: 0 }}
          >
            <XIcon size={12} />
          </button>
        </Label>
      ))}
      <Select
        aria-label={pickLabel}
        value=""
        onChange={(e) => {
          const o = options?.find((x) => String(x.id) === e.target.value);
          if (o) void save(onAdd(o.id), (t) => t('users.linkAdded', { name: seededText(t, entity, o.label) }));
        }}
        data-testid={testId}
      >
        <Select.Option value="">{pickLabel}</Select.Option>
        {(options ?? [])
          .filter((o) => !taken.includes(o.id))
          .map((o) => (
            <Select.Option key={o.id} value={String(o.id)}>
              {shown(o.label)}
            </Select.Option>
          ))}
      </Select>
    </div>
  );
}

/** The texts and the add input of a user's language and competence links (sub-resources of the users definition). */
const CHIP_LINKS = {
  languages: { title: 'routes.languages', pick: 'users.addLanguage', testId: 'add-language', field: 'language_id' },
  competencies: { title: 'routes.competencies', pick: 'users.addCompetence', testId: 'add-competence', field: 'competence_id' },
} as const;

/** A user's languages or competencies: chips, and a select of the catalogue's other entries. */
function CatalogueLinks({ user, kind, save }: { user: UserDetail; kind: keyof typeof CHIP_LINKS; save: ReturnType<typeof useLinkSaver> }) {
  const { t } = useTranslation();
  const texts = CHIP_LINKS[kind];
  const links = trpc.users[kind];
  const add = links.add.useMutation();
  const remove = links.remove.useMutation();
  const options = (kind === 'languages' ? trpc.languages : trpc.competencies).options.useQuery({});
  return (
    <ChipLinks
      title={t(texts.title)}
      entity={kind}
      items={user[kind]}
      options={options.data}
      pickLabel={t(texts.pick)}
      onAdd={(id) => (add.mutateAsync as (input: Record<string, number>) => Promise<unknown>)({ id: user.id, [texts.field]: id })}
      onRemove={(id) => remove.mutateAsync({ id: user.id, key: id })}
      save={save}
      testId={texts.testId}
    />
  );
}

/** Roles, operational range, languages and competencies: each change is saved at once and confirmed with a toast. */
function Links({ user }: { user: UserDetail }) {
  const save = useLinkSaver(user);
  return (
    <section style={{ marginTop: 32, display: 'grid', gap: 20 }}>
      <RoleLinks user={user} />
      <RangeLink user={user} />
      <CatalogueLinks user={user} kind="languages" save={save} />
      <CatalogueLinks user={user} kind="competencies" save={save} />
    </section>
  );
}

function UserBicycles({ userId }: { userId: number }) {
  const { t, i18n } = useTranslation();
  const bicycles = trpc.bicycles.list.useQuery({ page: 1, page_size: 100, filters: { owner_id: String(userId) } });
  return (
    <section style={{ marginTop: 32 }} data-testid="user-bicycles">
      <Heading as="h2" style={{ fontSize: 16, marginBottom: 8 }}>
        {t('routes.bicycles')}
      </Heading>
      {!bicycles.data ? null : bicycles.data.results.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('users.noBicycles')}</p>
      ) : (
        <ul>
          {bicycles.data.results.map((b) => (
            <li key={b.id}>
              <Link to={`/bicycles/${b.id}`}>{labelOf(bicyclesEntity, b, i18n.language)}</Link>
              {!b.is_active && <Label style={{ marginLeft: 6 }}>{t('bicycles.inactive')}</Label>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** /users/:id (Admin): all §3 user fields, role/language/competence links, the user's bicycles. */
export default function UserPage() {
  const { t } = useTranslation();
  const id = Number(useParams().id);
  const valid = Number.isInteger(id) && id > 0;
  const user = trpc.users.get.useQuery({ id }, { enabled: valid });
  if (!valid) return <ErrorState error={{ data: { appCode: 'not_found' } }} />;
  if (!user.data) return user.error ? <ErrorState error={user.error} onRetry={() => void user.refetch()} /> : <PageSpinner />;
  const u = user.data as unknown as UserDetail;
  return (
    <section>
      <PrimerLink as={Link} to="/users">
        ← {t('routes.users')}
      </PrimerLink>
      <Heading as="h1" style={{ margin: '12px 0 4px' }} data-testid="detail-title">
        {nameOf(u)}
      </Heading>
      <p style={{ color: 'var(--fgColor-muted)', marginTop: 0 }}>
        {u.email} · {t(`users.accountStatus.${u.account_status}`)} · <span data-testid="invitation-status">{t(`users.invitationStatus.${u.invitation_status}`)}</span>
      </p>
      <div style={{ marginBottom: 16 }}>
        <RecordActions def={usersEntity} record={user.data} size="medium" testId={invitationTestId(u.id)} />
      </div>
      <WithHistoryTab def={usersEntity} record={user.data}>
        <UserForm record={user.data} />
        <Links user={u} />
        <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(320px, 1fr))', columnGap: 32 }}>
          <UserBicycles userId={u.id} />
          <RelatedServices filters={{ owner_id: String(u.id) }} title={t('services.ofOwner')} other="buddy_id" testId="user-services" />
          {u.roles.includes(ROLE.Buddy) && <RelatedServices filters={{ buddy_id: String(u.id) }} title={t('services.ofBuddy')} other="bicycle_id" testId="buddy-services" />}
        </div>
        <div style={{ marginTop: 32 }}>
          <SubscriptionsList userId={u.id} />
        </div>
      </WithHistoryTab>
    </section>
  );
}
