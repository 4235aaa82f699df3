import { assertion } from './assertion.js';
import { error } from './error.js';
import { fatal } from './fatal.js';
import { reference } from './reference.js';
import type { SalientRule } from './rule.js';

/** Every preview rule, from the highest severity down: a line gets the first that rates it. */
export const RULES: readonly SalientRule[] = [fatal, error, assertion, reference];
