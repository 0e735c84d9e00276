import { ServerStyleSheet } from 'styled-components';

/** Past this many, new rules are not kept (a style interpolating ever new values would otherwise grow it for good). */
const MAX_KEPT = 5_000;
const compiled = new Map<string, string[]>();

/**
 * A server render's style sheet that reuses what stylis compiled for earlier renders (ADR 053). A page's
 * sheet is new for each request, so styled-components compiled every component's CSS again with stylis for
 * each one (~3 % of a list page's render). A class name is a hash of its component and its CSS, so the same
 * name always stands for the same rules: when this sheet is asked whether it has a name it lacks but an
 * earlier render compiled, it takes those rules and says yes, and the compiling is skipped. The page's
 * `<style>` holds what it held before, in the same order: only what this render used.
 */
export function reusingStyleSheet(): ServerStyleSheet {
  const sheet = new ServerStyleSheet();
  const instance = sheet.instance;
  const has = instance.hasNameForId.bind(instance);
  const insert = instance.insertRules.bind(instance);
  instance.insertRules = (id, name, rules) => {
    if (compiled.size < MAX_KEPT) compiled.set(`${id} ${name}`, rules);
    insert(id, name, rules);
  };
  instance.hasNameForId = (id, name) => {
    if (has(id, name)) return true;
    const rules = compiled.get(`${id} ${name}`);
    if (!rules) return false;
    insert(id, name, rules);
    return true;
  };
  return sheet;
}
