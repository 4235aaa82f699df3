import { fail } from '../harness.js';
import { NAMING_EXAMPLES } from '../hostile-inputs.js';

/** The leaf the shared naming rule makes: 20 lowercase hex digits, `-`, the safe name. */
const RULE_PREFIX = /^[0-9a-f]{20}-/;

/**
 * The suggested name of the control save: it has no fragment of its own, so whatever of an
 * example's fragments its locator holds is a fixed part of every locator (a scheme, a
 * root, a session), not the example's name.
 */
export const CONTROL_NAME = 'q';

/** The last `/` segment of a locator (the whole locator when it has none). */
export function leafOf(locator: string): string {
  return locator.slice(locator.lastIndexOf('/') + 1);
}

/** Whether `leaf` is exactly what the shared rule makes of a name whose safe form is `safe`. */
function followsRule(leaf: string, safe: string): boolean {
  return RULE_PREFIX.test(leaf) && leaf.slice(21) === safe;
}

/**
 * The fragments of a suggested name that, found in a locator, show it carries the name,
 * lowercased: the safe name itself, the extension with its dot (`.md`) of either name, and
 * every run of three or more letters and digits of either name (`notes`, `build`,
 * `output`). Shorter pieces are left out: a random id holds them by chance.
 */
export function nameFragments(suggested: string, safe: string): string[] {
  const fragments = new Set<string>();
  const add = (fragment: string): void => {
    if (Array.from(fragment).length >= 3) fragments.add(fragment.toLowerCase());
  };
  add(safe);
  for (const name of [suggested, safe]) {
    const extension = /\.[\p{L}\p{N}]+$/u.exec(name);
    if (extension !== null) add(extension[0]);
    for (const run of name.match(/[\p{L}\p{N}]{3,}/gu) ?? []) add(run);
  }
  return [...fragments];
}

/** How one example's two locators relate to its name. */
export interface NamingSample {
  readonly suggested: string;
  readonly safe: string;
  /** The two locators the backend gave for two saves under `suggested`. */
  readonly locators: readonly [string, string];
}

/**
 * The fragment of the name that the locators carry, or `undefined` when they carry none: a
 * fragment counts when it is in both locators (not by chance in one random id) and not in
 * the control locator (not a fixed part of every locator). A leaf that follows the rule
 * carries the name even when the safe name is too short to be a fragment (`x`).
 */
export function carriedFragment(sample: NamingSample, control: string): string | undefined {
  const [first, second] = sample.locators;
  if (followsRule(leafOf(first), sample.safe) || followsRule(leafOf(second), sample.safe)) return sample.safe;
  const a = first.toLowerCase();
  const b = second.toLowerCase();
  const c = control.toLowerCase();
  return nameFragments(sample.suggested, sample.safe).find((f) => a.includes(f) && b.includes(f) && !c.includes(f));
}

/**
 * The naming-rule check: saves each of `NAMING_EXAMPLES` twice and the control name once
 * through `save` (which answers the locator), and fails unless every example's locators
 * carry no part of its name, or every example's leaves are exactly `<20 hex>-<safe name>`.
 * Answers whether the locators name their artifacts.
 */
export async function checkNamingRule(save: (suggestedName: string) => Promise<string>): Promise<boolean> {
  const control = await save(CONTROL_NAME);
  const named: string[] = [];
  const bare: string[] = [];
  for (const [suggested, safe] of NAMING_EXAMPLES) {
    const sample: NamingSample = { suggested, safe, locators: [await save(suggested), await save(suggested)] };
    const fragment = carriedFragment(sample, control);
    if (fragment === undefined) {
      bare.push(suggested);
      continue;
    }
    named.push(suggested);
    for (const locator of sample.locators) {
      const leaf = leafOf(locator);
      if (!followsRule(leaf, safe)) {
        fail(
          `the suggested name ${JSON.stringify(suggested)} gave the locator ${JSON.stringify(locator)}, which carries ${JSON.stringify(fragment)} of the name; ` +
            `a locator that carries the name must end in the leaf the shared rule makes, <20 hex>-${safe} (leafName of @spillway/backend-utils/naming), or carry no part of the name at all`,
        );
      }
    }
  }
  if (named.length > 0 && bare.length > 0) {
    fail(`only some suggested names show in the locators: ${JSON.stringify(named)} do, ${JSON.stringify(bare)} do not; carry every name by the shared rule (<20 hex>-<safe name>) or none`);
  }
  return named.length > 0;
}
