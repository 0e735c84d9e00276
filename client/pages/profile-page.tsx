import { Button, Flash, Heading } from '@primer/react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { changeEmailInput, profileUpdateInput, type Profile } from '../../shared/schemas/auth.ts';
import { CountryField, LanguageField } from '../components/choice-field.tsx';
import { ProfilePictureField } from '../components/image-upload.tsx';
import { TextField } from '../components/text-field.tsx';
import { useZodForm } from '../components/use-zod-form.ts';
import { useUnsavedChangesGuard } from '../components/use-unsaved-guard.ts';
import { errorText, fieldErrorsOf, fieldText } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { useReloadSession } from '../session.ts';
import { trpc } from '../trpc.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { useQueryClient } from '@tanstack/react-query';
import { isLanguage } from '../../shared/languages.ts';
import { persistLanguage } from '../language-preference.ts';

const Grid = styled.form`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(240px, 1fr));
  gap: 16px;
  max-width: 760px;
`;

const FULL = { gridColumn: '1 / -1' } as const;

function toForm(profile: Profile) {
  return {
    first_name: profile.first_name ?? '',
    last_name: profile.last_name ?? '',
    phone_number: profile.phone_number ?? '',
    country: (profile.country as 'gb' | 'se' | null) ?? null,
    language: (profile.language as 'en' | 'sv' | null) ?? null,
    profile_image: profile.profile_image ?? null,
    biography: profile.biography ?? '',
    state: profile.state ?? '',
    area: profile.area ?? '',
    city: profile.city ?? '',
    post_code: profile.post_code ?? '',
  };
}

export default function ProfilePage() {
  const { t } = useTranslation();
  const profile = trpc.account.get.useQuery();
  if (!profile.data) return profile.error ? <p role="alert">{errorText(t, profile.error)}</p> : <PageSpinner />;
  return <ProfileForm profile={profile.data} />;
}

type ProfileFormState = ReturnType<typeof useZodForm<typeof profileUpdateInput>>;

/** Saves the profile form: the session and, when a new language was chosen, the app's language follow. */
function useProfileSave(profile: Profile, form: ProfileFormState) {
  const { i18n } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const utils = trpc.useUtils();
  const reloadSession = useReloadSession();
  const update = trpc.account.update.useMutation();
  const [saving, setSaving] = useState(false);

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    // Never silent: every field message is shown beside its field, and the toast says why nothing was saved.
    if (!input) return toast.error((t) => t('errors.validation_error'));
    setSaving(true);
    try {
      const saved = await update.mutateAsync(input);
      utils.account.get.setData(undefined, saved);
      await reloadSession();
      // A newly chosen profile language is applied at once, as it is at every sign-in (ADR 023).
      if (isLanguage(saved.language) && saved.language !== profile.language && saved.language !== i18n.language) {
        persistLanguage(saved.language);
        await i18n.changeLanguage(saved.language);
        await queryClient.invalidateQueries();
      }
      toast.success((t) => t('profile.saved'));
    } catch (error) {
      form.applyServerError(error);
      toast.error((t) => errorText(t, error));
    } finally {
      setSaving(false);
    }
  };

  return { saving, onSubmit };
}

function ProfileForm({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const form = useZodForm(profileUpdateInput, toForm(profile));
  const { saving, onSubmit } = useProfileSave(profile, form);

  // eslint-disable-next-line react-hooks/exhaustive-deps -- the form starts over when the saved profile changes, not when `form` (a new object each render) does
  useEffect(() => form.setValues(toForm(profile)), [profile]);
  useUnsavedChangesGuard(JSON.stringify(form.values) !== JSON.stringify(toForm(profile)));

  const text = (key: 'first_name' | 'last_name' | 'phone_number' | 'state' | 'area' | 'city' | 'post_code', label: string, extra: { required?: boolean; type?: 'tel' } = {}) => (
    <TextField name={key} label={label} value={form.values[key]} onChange={(v) => form.set(key, v)} error={form.errors[key]} {...extra} />
  );

  return (
    <section>
      <Heading as="h1" style={{ marginBottom: 16 }}>
        {t('profile.title')}
      </Heading>
      <EmailChange profile={profile} />
      <Grid onSubmit={onSubmit} noValidate data-testid="profile-form">
        <div style={FULL}>
          <div style={{ fontWeight: 600, fontSize: 14, marginBottom: 8 }} aria-hidden="true">
            {t('profile.picture')}
          </div>
          <ProfilePictureField value={form.values.profile_image} onChange={(url) => form.set('profile_image', url)} error={fieldText(t, form.errors.profile_image)} />
        </div>
        {text('first_name', t('profile.firstName'), { required: true })}
        {text('last_name', t('profile.lastName'), { required: true })}
        {text('phone_number', t('profile.phone'), { type: 'tel' })}
        <CountryField label={t('profile.country')} value={form.values.country} onChange={(v) => form.set('country', v)} error={form.errors.country} />
        <LanguageField label={t('profile.language')} value={form.values.language} onChange={(v) => form.set('language', v)} error={form.errors.language} />
        {text('city', t('profile.city'))}
        {text('area', t('profile.area'))}
        {text('state', t('profile.state'))}
        {text('post_code', t('profile.postCode'))}
        <div style={FULL}>
          <TextField
            name="biography"
            label={t('profile.biography')}
            value={form.values.biography}
            onChange={(v) => form.set('biography', v)}
            error={form.errors.biography}
            multiline
          />
        </div>
        <div style={FULL}>
          <Button type="submit" variant="primary" loading={saving} data-testid="profile-save">
            {t('profile.save')}
          </Button>
        </div>
      </Grid>
    </section>
  );
}

/** The address signs the user in, so a new one only takes effect once its mailed link is opened. */
function EmailChange({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const change = trpc.account.changeEmail.useMutation();
  const form = useZodForm(changeEmailInput, { email: '' });
  const [open, setOpen] = useState(false);
  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (!input) return;
    try {
      const saved = await change.mutateAsync(input);
      utils.account.get.setData(undefined, saved);
      toast.success((t) => t('profile.emailLinkSent', { email: input.email }));
      form.setValues({ email: '' });
      setOpen(false);
    } catch (error) {
      form.applyServerError(error);
      if (!fieldErrorsOf(error).email) toast.error((t) => errorText(t, error));
    }
  };
  return (
    <div style={{ marginBottom: 20, maxWidth: 760 }}>
      <p style={{ color: 'var(--fgColor-muted)', display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }}>
        <span data-testid="profile-email">{profile.email}</span>
        {!open && (
          <Button size="small" onClick={() => setOpen(true)} data-testid="change-email">
            {t('profile.changeEmail')}
          </Button>
        )}
      </p>
      {profile.pending_email && (
        <Flash variant="default" data-testid="pending-email">
          {t('profile.emailPending', { email: profile.pending_email })}
        </Flash>
      )}
      {open && (
        <form onSubmit={onSubmit} noValidate style={{ display: 'flex', gap: 8, alignItems: 'flex-end', flexWrap: 'wrap', marginTop: 8 }} data-testid="change-email-form">
          <TextField name="email" type="email" label={t('profile.newEmail')} value={form.values.email} onChange={(v) => form.set('email', v)} error={form.errors.email} required />
          <Button type="submit" variant="primary" loading={change.isPending}>
            {t('profile.sendEmailLink')}
          </Button>
          <Button type="button" onClick={() => setOpen(false)}>
            {t('form.cancel')}
          </Button>
        </form>
      )}
    </div>
  );
}
