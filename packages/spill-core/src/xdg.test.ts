import { describe, expect, it } from 'vitest';
import { xdgBaseDir } from './xdg.js';

describe('xdgBaseDir', () => {
  it('takes the variable when it is an absolute path', () => {
    expect(xdgBaseDir('state', { XDG_STATE_HOME: '/srv/state' }, '/home/me')).toBe('/srv/state');
    expect(xdgBaseDir('config', { XDG_CONFIG_HOME: '/c' }, '/home/me')).toBe('/c');
    expect(xdgBaseDir('data', { XDG_DATA_HOME: '/d' }, '/home/me')).toBe('/d');
    expect(xdgBaseDir('cache', { XDG_CACHE_HOME: '/k' }, '/home/me')).toBe('/k');
  });

  it('ignores an unset, empty or relative value, as the XDG specification asks, and uses the default under home', () => {
    for (const value of [undefined, '', 'relative/dir', './x']) {
      const env = { XDG_STATE_HOME: value, XDG_CONFIG_HOME: value, XDG_DATA_HOME: value, XDG_CACHE_HOME: value };
      expect(xdgBaseDir('state', env, '/home/me')).toBe('/home/me/.local/state');
      expect(xdgBaseDir('config', env, '/home/me/')).toBe('/home/me/.config');
      expect(xdgBaseDir('data', env, '/home/me')).toBe('/home/me/.local/share');
      expect(xdgBaseDir('cache', env, '/home/me')).toBe('/home/me/.cache');
    }
  });
});
