import { isSpillError } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { isLastingStore, knownSchemes, localPath, openBackendUrl, openLoadedBackend, registeredBackends, schemeOf } from './backend-registry.js';
import { isCliError } from './cli-error.js';

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the backend registry', () => {
  it('tells a URL from a plain path by its scheme', () => {
    expect(schemeOf('s3://b/p')).toBe('s3');
    expect(schemeOf('Spill+Template://x')).toBe('spill+template');
    expect(schemeOf('memory:')).toBe('memory');
    expect(schemeOf('/var/spill')).toBeUndefined();
    expect(schemeOf('relative/dir')).toBeUndefined();
    expect(schemeOf('C:\\spill')).toBeUndefined();
  });

  it('reads a file: URL or a plain path as a directory', () => {
    expect(localPath('file:///var/spill', '/work')).toBe('/var/spill');
    expect(localPath('spill', '/work')).toBe('/work/spill');
    expect(isCliError(caught(() => localPath('file://elsewhere/x', '/work')), 'USAGE')).toBe(true);
  });

  it('opens the local backend for a plain path and a memory backend of its own for memory:', async () => {
    const local = openLoadedBackend('/nonexistent-spillway-root', { env: {}, cwd: '/' });
    expect(local.name).toBe('local');
    expect(local.specificationVersion).toBe('v1');
    const [a, b] = await Promise.all([openBackendUrl('memory:', { env: {}, cwd: '/' }), openBackendUrl('memory:', { env: {}, cwd: '/' })]);
    expect(a.name).toBe('memory');
    expect(a).not.toBe(b);
    expect(isLastingStore('memory:')).toBe(false);
    expect(isLastingStore('s3://b')).toBe(true);
    expect(isLastingStore('/dir')).toBe(true);
  });

  it('reads SPILLWAY_BACKENDS as scheme=module pairs', () => {
    expect([...registeredBackends({ SPILLWAY_BACKENDS: ' acme=@acme/spillway-backend , Other:=/opt/other.js,,' })]).toEqual([
      ['acme', '@acme/spillway-backend'],
      ['other', '/opt/other.js'],
    ]);
    expect(knownSchemes({ SPILLWAY_BACKENDS: 'acme=/x.js' })).toBe('file:///dir, s3://bucket/prefix, memory:, acme: (from SPILLWAY_BACKENDS)');
  });

  it.each([
    ['an entry without a module', 'acme', /is not scheme=module/],
    ['a built-in scheme', 's3=/opt/fake.js', /cannot register 's3:', which is built in/],
    ['a relative path', 'acme=./backend.js', /give a package name, an absolute path or a file: URL/],
    ['a URL of another kind', 'acme=https://example.com/x.js', /give a package name, an absolute path or a file: URL/],
  ])('refuses %s in SPILLWAY_BACKENDS with USAGE', (_label, setting, message) => {
    const error = caught(() => registeredBackends({ SPILLWAY_BACKENDS: setting }));
    expect(isCliError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses an unknown scheme with USAGE, listing the known ones', () => {
    const error = caught(() => openLoadedBackend('nosuch://x', { env: {}, cwd: '/', setting: '--store' }));
    expect(isCliError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toBe(
      "--store 'nosuch://x' names the unknown scheme 'nosuch:'; known: file:///dir, s3://bucket/prefix, memory:. Register a third-party backend with SPILLWAY_BACKENDS=nosuch=<module>.",
    );
  });

  it('reports a registered module that cannot be loaded when the URL is opened', async () => {
    const env = { SPILLWAY_BACKENDS: 'gone=/nonexistent-spillway/backend.js' };
    const error = await openBackendUrl('gone://x', { env, cwd: '/' }).catch((e: unknown) => e);
    expect(isCliError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toMatch(/SPILLWAY_BACKENDS maps 'gone:' to '\/nonexistent-spillway\/backend.js', which could not be loaded/);
    expect(isSpillError(error)).toBe(false);
  });
});
