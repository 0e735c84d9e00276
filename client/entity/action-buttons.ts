import { actionRoles, actionsOf, isFinalStatus, nextStatuses, statusFieldOf, type ActionDef, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';

/** One button: an action, one of its variants, or the status flow's step to `to`. */
export interface ActionButton {
  key: string;
  variant?: string;
  to?: number;
}

/** A button as drawn: what it sends, whether it asks first, and how it looks. */
export interface PlannedButton extends ActionButton {
  action: ActionDef;
  /** The input beside the id (and the version of a versioned action). */
  input: Readonly<Record<string, unknown>>;
  confirm: boolean;
  tone: 'default' | 'primary' | 'danger';
  /** The i18next context of its texts: the variant, or the target status (`label_4`, `confirm_4`). */
  context?: string;
}

export interface ButtonFilter {
  only?: readonly string[];
  exclude?: readonly string[];
  /** Status-flow targets offered (default: every step the flow allows the viewer). */
  targets?: readonly number[];
}

/** Colours of a flow's target status that make its step the screen's main (primary) or a destructive one. */
const TONE_OF_COLOUR: Record<string, PlannedButton['tone']> = { accent: 'primary', success: 'primary', severe: 'danger', danger: 'danger' };

/** An action whose declared input has required fields needs a form of its own (a trial group's invite): not a button. */
const needsForm = (action: ActionDef) => Object.values(action.input ?? {}).some((field) => field.required);

/**
 * The buttons of a record for a viewer holding `roles`: every action of the definition (`actionsOf`) open
 * to them and enabled for the record; the status flow's `transition` as one button per step the flow allows
 * them from the record's status (a final target is always confirmed); an action with variants as one
 * button per variant. Collection actions and actions needing a form are left to their screens.
 */
export function actionButtons(def: EntityDef, record: EntityRecord, roles: readonly string[], filter: ButtonFilter = {}): PlannedButton[] {
  const status = statusFieldOf(def);
  const buttons: PlannedButton[] = [];
  for (const [key, action] of Object.entries(actionsOf(def))) {
    if ((filter.only && !filter.only.includes(key)) || filter.exclude?.includes(key)) continue;
    if (action.on === 'collection' || action.button === false || !actionRoles(def, action).some((role) => roles.includes(role))) continue;
    if (key === 'transition' && status) {
      if (action.enabledWhen && !action.enabledWhen(record)) continue;
      const [field, { status: flow }] = status;
      for (const to of nextStatuses(flow, Number(record[field]), roles)) {
        if (filter.targets && !filter.targets.includes(to)) continue;
        const tone = TONE_OF_COLOUR[flow.colors[to] ?? ''] ?? 'default';
        buttons.push({ key, to, action, input: { to }, confirm: Boolean(action.confirm) || isFinalStatus(flow, to), tone, context: String(to) });
      }
      continue;
    }
    const tone = action.danger ? 'danger' : 'default';
    if (action.variants) {
      for (const [variant, input] of Object.entries(action.variants)) {
        if (action.enabledWhen && !action.enabledWhen(record, input)) continue;
        buttons.push({ key, variant, action, input, confirm: Boolean(action.confirm), tone, context: variant });
      }
      continue;
    }
    if (needsForm(action) || (action.enabledWhen && !action.enabledWhen(record))) continue;
    buttons.push({ key, action, input: {}, confirm: Boolean(action.confirm), tone });
  }
  return buttons;
}
