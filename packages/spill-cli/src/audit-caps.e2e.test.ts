import { describe, expect, it } from 'vitest';
import { SETUP_CAPS } from '@spillway/audit';
import { HOSTS } from '@spillway/hosts';

describe('spillway audit measures the cap spillway setup writes', () => {
  it.each(['claude-code', 'codex', 'gemini'] as const)('%s', (host) => {
    expect(SETUP_CAPS[host]).toBe(HOSTS[host].cap);
  });
});
