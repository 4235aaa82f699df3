/**
 * Fixed inputs the suite uses, for backend authors' own tests: hostile suggested names
 * and session ids, sample contents, and the examples of the shared naming rule.
 * Published as `@spillway/conformance/inputs`.
 *
 * @packageDocumentation
 */
export { HOSTILE_SESSION_IDS, HOSTILE_SUGGESTED_NAMES, NAMING_EXAMPLES } from './hostile-inputs.js';
export { SAMPLE_CONTENTS, makeLargeContent } from './samples.js';
