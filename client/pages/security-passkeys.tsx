import { Button, Heading } from '@primer/react';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PasskeyCredential } from '../../shared/schemas/passkeys.ts';
import { formatDateTime } from '../../shared/format.ts';
import { TextField } from '../components/text-field.tsx';
import { errorText } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { ActionTableHead, FirstFactorCodes, Row, Section, Table } from './security-parts.tsx';

interface PasskeyRow {
  id: number;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** Adding (options from the API, the browser makes the passkey, the answer registered) and removing a passkey. */
function usePasskeys() {
  const { t } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const options = trpc.security.passkeyOptions.useMutation();
  const add = trpc.security.addPasskey.useMutation();
  const remove = trpc.security.removePasskey.useMutation();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [making, setMaking] = useState(false);

  const onAdd = async (event: React.FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setNameError(t('validation.required'));
    setNameError(undefined);
    setMaking(true);
    try {
      const { startRegistration, browserSupportsWebAuthn } = await import('@simplewebauthn/browser');
      if (!browserSupportsWebAuthn()) return toast.error((t) => t('security.passkeyUnsupported'));
      const optionsJSON = (await options.mutateAsync()) as unknown as PublicKeyCredentialCreationOptionsJSON;
      let response;
      try {
        response = await startRegistration({ optionsJSON });
      } catch {
        return toast.error((t) => t('security.passkeyCanceled'));
      }
      const done = await add.mutateAsync({ name: trimmed, response: response as unknown as PasskeyCredential });
      setName('');
      toast.success((t) => t('security.passkeyAdded'));
      if (done.recovery_codes) setCodes(done.recovery_codes);
      await utils.security.invalidate();
    } catch (error) {
      toast.error((t) => errorText(t, error));
    } finally {
      setMaking(false);
    }
  };
  const onRemove = (id: number) =>
    remove.mutate(
      { id },
      {
        onSuccess: () => {
          toast.success((t) => t('security.passkeyRemoved'));
          void utils.security.invalidate();
        },
        onError: (error) => toast.error((t) => errorText(t, error)),
      },
    );
  return { name, setName, nameError, codes, setCodes, making, onAdd, onRemove, removing: remove.isPending };
}

/** The user's passkeys, each with its Remove button (named after the passkey). */
function PasskeyTable({ passkeys, onRemove, removing }: { passkeys: PasskeyRow[]; onRemove: (id: number) => void; removing: boolean }) {
  const { t, i18n } = useTranslation();
  return (
    <Table data-testid="passkeys">
      <ActionTableHead columns={[t('security.passkeyName'), t('security.passkeyAddedOn'), t('security.passkeyLastUsed')]} />
      <tbody>
        {passkeys.map((p) => (
          <tr key={p.id} data-testid="passkey-row">
            <td>{p.name ?? '–'}</td>
            <td>{formatDateTime(p.created_at, i18n.language)}</td>
            <td>{p.last_used_at ? formatDateTime(p.last_used_at, i18n.language) : t('security.passkeyNever')}</td>
            <td>
              <Button
                size="small"
                variant="danger"
                onClick={() => onRemove(p.id)}
                disabled={removing}
                aria-label={t('security.passkeyRemove', { name: p.name ?? '' })}
                data-testid="passkey-remove"
              >
                {t('security.passkeyRemoveShort')}
              </Button>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/**
 * Passkeys (ADR 075): named, listed, removable. Adding one asks the API for options, lets the browser make the
 * passkey (its WebAuthn code loads only here), and registers the answer; a first factor shows recovery codes.
 */
export function Passkeys({ passkeys }: { passkeys: PasskeyRow[] }) {
  const { t } = useTranslation();
  const { name, setName, nameError, codes, setCodes, making, onAdd, onRemove, removing } = usePasskeys();
  return (
    <Section aria-labelledby="security-passkeys">
      <Heading as="h2" id="security-passkeys" style={{ fontSize: 20 }}>
        {t('security.passkeysTitle')}
      </Heading>
      <p>{t('security.passkeysHelp')}</p>
      <FirstFactorCodes codes={codes} onDone={() => setCodes(null)} />
      {passkeys.length === 0 ? <p data-testid="passkeys-none">{t('security.passkeyNone')}</p> : <PasskeyTable passkeys={passkeys} onRemove={onRemove} removing={removing} />}
      <Row onSubmit={(event) => void onAdd(event)} noValidate data-testid="passkey-add-form">
        <TextField
          name="passkey-name"
          label={t('security.passkeyName')}
          caption={t('security.passkeyNameHint')}
          value={name}
          onChange={setName}
          error={nameError}
          maxLength={64}
          required
        />
        <Button type="submit" variant="primary" loading={making} data-testid="passkey-add">
          {t('security.passkeyAdd')}
        </Button>
      </Row>
    </Section>
  );
}
