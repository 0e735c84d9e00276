import { describe, expect, it } from 'vitest';
import enResources from '../../locales/en/resources.json';
import svResources from '../../locales/sv/resources.json';
import { actionButtons } from '../../client/entity/action-buttons.ts';
import { actionsOf, isFinalStatus, statusFieldOf, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { EXPERT_REQUEST_STATUS, expertRequestsEntity } from '../../shared/entities/expert-requests.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { SERVICE_STATUS, servicesEntity } from '../../shared/entities/services.ts';
import { subscriptionsEntity } from '../../shared/entities/subscriptions.ts';
import { trialGroupsEntity } from '../../shared/entities/trial-groups.ts';

/** The buttons RecordActions draws (issue 18), worked out from the definitions without a browser. */
const record = (fields: Record<string, unknown>): EntityRecord => ({ id: 7, version: 3, created_at: '', updated_at: '', ...fields });
const drawn = (def: EntityDef, fields: Record<string, unknown>, roles: readonly string[], filter = {}) =>
  actionButtons(def, record(fields), roles, filter).map((b) => (b.to !== undefined ? `${b.key}:${b.to}` : b.variant ? `${b.key}:${b.variant}` : b.key));

describe('the buttons of a record', () => {
  it('offers a Buddy only the status steps the flow opens to them, an Admin also the admin-only ones', () => {
    expect(drawn(servicesEntity, { status: SERVICE_STATUS.Requested }, ['Buddy'])).toEqual(['transition:2', 'transition:3']);
    expect(drawn(servicesEntity, { status: SERVICE_STATUS.Requested }, ['Admin'])).toEqual(['transition:2', 'transition:3', 'transition:5']);
    expect(drawn(servicesEntity, { status: SERVICE_STATUS.Booked }, ['Buddy'])).toEqual(['transition:4', 'transition:3']);
    // Nothing leaves a final status, and a role without the transition right sees nothing.
    expect(drawn(servicesEntity, { status: SERVICE_STATUS.Finished }, ['Admin'])).toEqual([]);
    expect(drawn(servicesEntity, { status: SERVICE_STATUS.Booked }, ['Shop'])).toEqual([]);
  });

  it('confirms a step into a final status, styles it by the target colour, and sends the version', () => {
    const [book, cancel, cancelByAdmin] = actionButtons(servicesEntity, record({ status: SERVICE_STATUS.Requested }), ['Admin']);
    expect([book!.confirm, cancel!.confirm, cancelByAdmin!.confirm]).toEqual([false, true, true]);
    expect([book!.tone, cancel!.tone, cancelByAdmin!.tone]).toEqual(['primary', 'danger', 'danger']);
    expect(book!.input).toEqual({ to: 2 });
    expect(book!.action.versioned).toBe(true);
    expect(book!.context).toBe('2');
  });

  it('limits the transition to the targets asked for (the expert list’s cancel)', () => {
    const only = { only: ['transition'], targets: [EXPERT_REQUEST_STATUS.Canceled] };
    expect(drawn(expertRequestsEntity, { status: EXPERT_REQUEST_STATUS.Requested }, ['Admin'], only)).toEqual(['transition:4']);
    expect(drawn(expertRequestsEntity, { status: EXPERT_REQUEST_STATUS.Completed }, ['Admin'], only)).toEqual([]);
  });

  it('draws declared actions enabled for the record, and one button per variant enabled for its input', () => {
    expect(drawn(bicyclesEntity, { is_active: true }, ['Admin'])).toEqual(['deactivate']);
    expect(drawn(bicyclesEntity, { is_active: false }, ['Admin'])).toEqual(['activate']);
    expect(drawn(bicyclesEntity, { is_active: false }, ['Buddy'])).toEqual([]);
    expect(drawn(subscriptionsEntity, { status: 'active', cancel_at_period_end: false }, ['Admin'])).toEqual(['cancel:now', 'cancel:atPeriodEnd']);
    // Told to end with its period: it can be resumed (activate) or cancelled now, not told again.
    expect(drawn(subscriptionsEntity, { status: 'active', cancel_at_period_end: true }, ['Admin'])).toEqual(['activate', 'cancel:now']);
    expect(drawn(subscriptionsEntity, { status: 'canceled' }, ['Admin'])).toEqual(['activate']);
    const [now, atEnd] = actionButtons(subscriptionsEntity, record({ status: 'trialing' }), ['Admin'], { only: ['cancel'] });
    expect([now!.input, atEnd!.input]).toEqual([{ at_period_end: false }, { at_period_end: true }]);
    expect(now!.tone).toBe('danger');
  });

  it('leaves actions that need a form (an invitation’s addresses) and those with a control of their own to their screens', () => {
    // invite needs its addresses; reinvite is run by the group page's invitations section (button: false, ADR 069).
    expect(Object.keys(trialGroupsEntity.actions ?? {})).toEqual(['invite', 'reinvite']);
    expect(drawn(trialGroupsEntity, {}, ['Admin'])).toEqual([]);
  });
});

describe('the texts of every button', () => {
  /** Every button any record could show: each variant, each status step. */
  function possibleButtons(def: EntityDef): { key: string; context?: string; confirm: boolean }[] {
    const status = statusFieldOf(def);
    return Object.entries(actionsOf(def)).flatMap(([key, action]): { key: string; context?: string; confirm: boolean }[] => {
      if (action.on === 'collection' || action.button === false || Object.values(action.input ?? {}).some((f) => f.required && key !== 'transition')) return [];
      if (key === 'transition' && status) return status[1].status.transitions.map((step) => ({ key, context: String(step.to), confirm: isFinalStatus(status[1].status, step.to) }));
      if (action.variants) return Object.keys(action.variants).map((variant) => ({ key, context: variant, confirm: Boolean(action.confirm) }));
      return [{ key, context: undefined, confirm: Boolean(action.confirm) }];
    });
  }

  for (const [lang, resources] of [
    ['en', enResources],
    ['sv', svResources],
  ] as const) {
    it(`has a label, a question where one is asked, and a done message for each, in ${lang}`, () => {
      const missing: string[] = [];
      for (const def of ENTITIES as readonly EntityDef[]) {
        const texts = ((resources as unknown as Record<string, { actions?: Record<string, Record<string, string>> }>)[def.name]?.actions ?? {}) as Record<
          string,
          Record<string, string>
        >;
        for (const button of possibleButtons(def)) {
          const own = texts[button.key] ?? {};
          const has = (text: string) => Boolean(own[`${text}_${button.context}`] ?? own[text]);
          const needed = ['label', 'done', ...(button.confirm ? ['confirm'] : [])];
          for (const text of needed) if (!has(text)) missing.push(`${def.name}.actions.${button.key}.${text}${button.context ? `_${button.context}` : ''}`);
        }
      }
      expect(missing).toEqual([]);
    });
  }
});
