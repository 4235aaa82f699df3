/**
 * The spill notice, re-exported from `@spillway/core/notice`, where the protocol lives
 * (so that readers of notices need not depend on the policy). Writers import it from here,
 * the door the design names; the policy's own entry does not repeat it.
 *
 * @packageDocumentation
 */
export * from '@spillway/core/notice';
