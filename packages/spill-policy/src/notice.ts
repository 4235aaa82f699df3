/**
 * The spill notice, re-exported from `@spillway/core/notice`, where the protocol lives
 * (so that readers of notices need not depend on the policy). Kept so that imports of
 * `@spillway/policy/notice` go on working.
 *
 * @packageDocumentation
 */
export * from '@spillway/core/notice';
