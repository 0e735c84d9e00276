import { Label } from '../components/controls.tsx';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { EntityDef, StatusFlow } from '../../shared/entity/define.ts';

export function statusText(t: TFunction, def: Pick<EntityDef, 'name'>, field: string, value: unknown): string {
  return t(`resources.${def.name}.options.${field}.${String(value)}`, { defaultValue: String(value) });
}

interface StatusLabelProps {
  def: Pick<EntityDef, 'name'>;
  field: string;
  flow: StatusFlow;
  value: unknown;
  /** The translated text, when the caller has it (list cells avoid a translation hook per cell). */
  text?: string;
}

/** A status value in its colour (§4: each service status has a display colour). */
export function StatusLabel({ text, ...props }: StatusLabelProps) {
  return text === undefined ? <TranslatedStatusLabel {...props} /> : <ColouredLabel {...props} text={text} />;
}

function TranslatedStatusLabel(props: Omit<StatusLabelProps, 'text'>) {
  const { t } = useTranslation();
  return <ColouredLabel {...props} text={statusText(t, props.def, props.field, props.value)} />;
}

function ColouredLabel({ field, flow, value, text }: StatusLabelProps & { text: string }) {
  return (
    <Label variant={flow.colors[Number(value)] ?? 'secondary'} data-testid={`status-${field}`} data-status={String(value)}>
      {text}
    </Label>
  );
}
