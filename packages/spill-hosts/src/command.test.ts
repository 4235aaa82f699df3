import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatWrapper, parseHookCommand, parseWrapper, shellQuote, shellWords, unwrapCommand, withCap, wrapCommand, wrapWith, hookCommandLine } from './command.js';

const SERVER = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] };
const COMMAND = { node: '/opt/node/bin/node', spillway: '/opt/spillway/bin/spillway.js' };

describe('parseWrapper knows every documented form', () => {
  it("setup's own wrapper: node, the script, the cap and the host", () => {
    const w = parseWrapper(wrapCommand(SERVER, COMMAND, 8192, 'codex'));
    expect(w).toMatchObject({ form: 'script', launcher: [COMMAND.node, COMMAND.spillway], cap: 8192, host: 'codex', server: SERVER, url: undefined, dashes: true });
  });

  it('an older setup wrapper without --host', () => {
    const w = parseWrapper({ command: COMMAND.node, args: [COMMAND.spillway, 'mcp', '--max-inline-bytes', '4096', '--', 'uvx', 'mcp-server-git'] });
    expect(w).toMatchObject({ form: 'script', cap: 4096, host: undefined, server: { command: 'uvx', args: ['mcp-server-git'] } });
  });

  it('spillway through PATH, with -- or without it', () => {
    expect(parseWrapper({ command: 'spillway', args: ['mcp', '--', 'npx', 'srv'] })).toMatchObject({ form: 'bin', cap: undefined, server: { command: 'npx', args: ['srv'] } });
    expect(parseWrapper({ command: 'spillway', args: ['mcp', '--session', 's1', 'npx', '-y', 'srv'] })).toMatchObject({ dashes: false, server: { command: 'npx', args: ['-y', 'srv'] } });
  });

  it('a remote server behind spillway mcp --url', () => {
    const w = parseWrapper({ command: 'spillway', args: ['mcp', '--url', 'https://mcp.example.com/mcp', '--header', 'Authorization: Bearer x'] });
    expect(w).toMatchObject({ form: 'bin', url: 'https://mcp.example.com/mcp', server: undefined });
    expect(unwrapCommand({ command: 'spillway', args: ['mcp', '--url', 'https://x'] })).toBeUndefined();
  });

  it('npx -y @spillway/cli mcp, with a version or --yes', () => {
    expect(parseWrapper({ command: 'npx', args: ['-y', '@spillway/cli', 'mcp', '--max-inline-bytes=2048', '--', 'uvx', 'x'] })).toMatchObject({
      form: 'npx',
      launcher: ['npx', '-y', '@spillway/cli'],
      cap: 2048,
      server: { command: 'uvx', args: ['x'] },
    });
    expect(parseWrapper({ command: 'npx', args: ['--yes', '@spillway/cli@1.2.3', 'mcp', '--', 'uvx'] })?.form).toBe('npx');
  });

  it('is not fooled by other commands', () => {
    expect(parseWrapper(SERVER)).toBeUndefined();
    expect(parseWrapper({ command: 'npx', args: ['-y', '@spillway/clix', 'mcp', '--', 'x'] })).toBeUndefined();
    expect(parseWrapper({ command: 'spillway', args: ['run', '--', 'x'] })).toBeUndefined();
    expect(parseWrapper({ command: 'spillway', args: ['mcp'] })).toBeUndefined();
    expect(parseWrapper({ command: 'node', args: ['server.js', 'mcp', '--', 'x'] })).toBeUndefined();
  });
});

const word = fc.string({ minLength: 1, maxLength: 12 });
const serverLine = fc.record({ command: word.filter((w) => !w.startsWith('-')), args: fc.array(word, { maxLength: 5 }) });
const launcher = fc.constantFrom<readonly string[]>(['spillway'], [COMMAND.node, COMMAND.spillway], ['/usr/local/bin/spillway']);

describe('properties', () => {
  it('a wrapper parses back to its server, cap and host, and formats back to itself', () => {
    fc.assert(
      fc.property(serverLine, launcher, fc.integer({ min: 1, max: 1e9 }), (server, words, cap) => {
        const line = wrapWith(words, server, cap, 'gemini');
        const w = parseWrapper(line);
        expect(w?.server).toEqual(server);
        expect(w?.cap).toBe(cap);
        expect(w?.host).toBe('gemini');
        expect(w === undefined ? undefined : formatWrapper(w)).toEqual(line);
      }),
    );
  });

  it('withCap sets the cap whatever the options held, and keeps every other option', () => {
    const option = fc.constantFrom('--session', '--timeout', '--host', '--max-inline-bytes');
    fc.assert(
      fc.property(fc.array(fc.tuple(option, fc.integer({ min: 1, max: 99999 }).map(String)), { maxLength: 4 }), fc.integer({ min: 1, max: 1e6 }), (pairs, cap) => {
        const options = pairs.flat();
        const line = formatWrapper({ form: 'bin', launcher: ['spillway'], options: withCap(options, cap), dashes: true, server: SERVER, url: undefined, cap: undefined, host: undefined });
        const w = parseWrapper(line);
        expect(w?.cap).toBe(cap);
        expect(w?.server).toEqual(SERVER);
        const others = (o: readonly string[]): string[] => o.filter((_, i) => o[i] !== '--max-inline-bytes' && o[i - 1] !== '--max-inline-bytes');
        expect(others(w?.options ?? [])).toEqual(others(options));
      }),
    );
  });

  it('shellWords undoes shellQuote', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, unit: 'binary' }), { minLength: 1, maxLength: 6 }), (words) => {
        expect(shellWords(words.map(shellQuote).join(' '))).toEqual(words);
      }),
    );
  });
});

describe('hook command lines', () => {
  it("reads the launcher and the cap of setup's hook, quoted paths included", () => {
    const line = hookCommandLine('claude-code', { node: '/opt/my node/node', spillway: COMMAND.spillway }, 24576);
    expect(parseHookCommand(line)).toEqual({ launcher: ['/opt/my node/node', COMMAND.spillway], cap: 24576 });
    expect(parseHookCommand('~/bin/audit-bash')).toBeUndefined();
    expect(parseHookCommand('node ./hook.js')).toBeUndefined();
  });
});
