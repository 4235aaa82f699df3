import { AuditError, isAuditError } from '@spillway/audit';
import { CliError, isCliError } from '@spillway/cli';
import { isSpillError, isSpillwayError, SpillError, SpillwayError } from '@spillway/core';
import { ConfigParseError } from '@spillway/hosts';
import { isSpillProxyError, SpillProxyError } from '@spillway/mcp';
import { describe, expect, it } from 'vitest';

// Every error family of every package derives from core's one base: a stable code, the
// family's name, a cause when given, and the marker that isSpillwayError checks across copies.

const cause = new Error('underneath');
const families: readonly { readonly error: SpillwayError; readonly name: string; readonly code: string; readonly own: (e: unknown) => boolean }[] = [
  { error: new SpillError('SPILL_NOT_FOUND', 'gone', { cause }), name: 'SpillError', code: 'SPILL_NOT_FOUND', own: (e) => isSpillError(e) },
  { error: new CliError('USAGE', 'bad flag', undefined, { cause }), name: 'CliError', code: 'USAGE', own: (e) => isCliError(e) },
  { error: new SpillProxyError('SPILLWAY_UPSTREAM_EXITED', 'ended', { cause }), name: 'SpillProxyError', code: 'SPILLWAY_UPSTREAM_EXITED', own: (e) => isSpillProxyError(e) },
  { error: new AuditError('AUDIT_NOT_FOUND', 'no transcripts', { cause }), name: 'AuditError', code: 'AUDIT_NOT_FOUND', own: (e) => isAuditError(e) },
  { error: new ConfigParseError('/x/settings.json', 'line 1'), name: 'ConfigParseError', code: 'SPILLWAY_CONFIG_UNPARSEABLE', own: (e) => e instanceof ConfigParseError },
];

describe('error families', () => {
  it.each(families)('$name derives from SpillwayError, with its code, name and cause', ({ error, name, code, own }) => {
    expect(error).toBeInstanceOf(SpillwayError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(isSpillwayError(error)).toBe(true);
    expect(isSpillwayError(error, code)).toBe(true);
    expect(isSpillwayError(error, 'SOMETHING_ELSE')).toBe(false);
    expect(own(error)).toBe(true);
    if (name !== 'ConfigParseError') expect(error.cause).toBe(cause);
  });

  it('no family is taken for another', () => {
    for (const a of families) for (const b of families) if (a !== b) expect(b.own(a.error), `${a.name} as ${b.name}`).toBe(false);
  });

  it('a copy from another realm or install (the marker alone) is recognised; a look-alike without it is not', () => {
    const copy = Object.assign(Object.create(null) as object, { code: 'SPILL_NOT_FOUND', [Symbol.for('spillway.Error')]: true });
    expect(isSpillwayError(copy, 'SPILL_NOT_FOUND')).toBe(true);
    expect(isSpillwayError({ code: 'SPILL_NOT_FOUND', name: 'SpillError' })).toBe(false);
    expect(isSpillwayError(null)).toBe(false);
  });
});
