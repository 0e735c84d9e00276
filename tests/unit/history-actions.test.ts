import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { actionText, RECORDED_ACTIONS } from '../../client/entity/record-history.tsx';
import { serverI18n } from '../../client/i18n-server.ts';

/** Every action the history records reads as words, in both languages (ADR 036, 038). */
describe('the history’s action texts', () => {
  const en = serverI18n('en').getFixedT('en');
  const sv = serverI18n('sv').getFixedT('sv');

  it('names the API’s own actions, a sub-resource’s operations and a declared action', () => {
    expect(actionText(en, 'users', 'sign_in_failed')).toBe('Sign-in failed');
    expect(actionText(sv, 'users', 'password_reset')).toBe('Lösenordet återställt');
    expect(actionText(en, 'users', 'roles.add')).toBe('Roles: added');
    expect(actionText(sv, 'users', 'roles.remove')).toBe('Roller: borttagen');
    expect(actionText(en, 'bicycles', 'deactivate')).toBe('Deactivate');
  });

  it('has a text for every recorded action, every writable sub-resource and every declared action, in en and sv', () => {
    for (const t of [en, sv]) {
      for (const action of RECORDED_ACTIONS) expect(actionText(t, 'assets', action)).not.toMatch(/_history|^[a-z_]+$/);
      for (const def of ENTITIES as readonly EntityDef[]) {
        for (const [key, sub] of Object.entries(def.subResources ?? {}))
          for (const op of ['add', 'set', 'setMany', 'remove'] as const)
            if (op === 'remove' ? sub.remove : sub[op]) expect(actionText(t, def.name, `${key}.${op}`).startsWith(`${key}:`)).toBe(false);
        for (const key of Object.keys(def.actions ?? {})) if (key !== 'transition') expect(actionText(t, def.name, key)).not.toBe(key);
      }
    }
  });
});
