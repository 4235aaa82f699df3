// The shared spill_search contract through the built binary: `spillway search --json` lists
// the hits, and `spillway mcp`'s spill_search answers the text, that the shared run gives
// over the same root, request by request.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createLocalBackend } from '@spillway/local';
import { createBackendSearch, type SpillSearch } from '@spillway/search';
import {
  expectSameSearchAnswers,
  expectSameSearchHits,
  saveSearchFixture,
  SEARCH_SESSION,
  sharedSearchRun,
  type SearchHitRange,
} from '@spillway/test-support/search-answers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';
import { host, INIT, text } from './test-mcp-host.js';
import { privateRootPerFile } from './test-temp-dirs.js';

const mcpDir = dirname(createRequire(import.meta.url).resolve('@spillway/mcp/package.json'));
const fsServer = join(dirname(createRequire(join(mcpDir, 'package.json')).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');

let root = '';
let base = '';
let home = '';
privateRootPerFile('spillway-search-contract-', (dirs) => {
  ({ root, base, home } = dirs);
});

describe('spillway search --json and spillway mcp answer the shared spill_search contract', () => {
  let shared: SpillSearch;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ensureBuilt();
    const backend = createLocalBackend({ root });
    await saveSearchFixture(backend);
    shared = await createBackendSearch(backend, { location: ':memory:' });
    env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', SPILLWAY_ROOT: root };
  });

  afterAll(async () => {
    await shared.close();
  });

  const reference = (args: { readonly query: string; readonly maxResults?: number }) => sharedSearchRun(shared)(args);

  it('spillway search --json lists the shared run\'s hits', async () => {
    await expectSameSearchHits(async (args) => {
      const max = args.maxResults === undefined ? [] : ['--max', String(args.maxResults)];
      const ran = await spillway(['search', '--json', '--session', SEARCH_SESSION, ...max, '--', args.query], { env });
      expect(ran.code, ran.stderr).toBe(0);
      return (JSON.parse(ran.out) as { results: SearchHitRange[] }).results;
    }, reference);
  });

  it('spillway mcp answers spill_search with the shared run\'s text', async () => {
    const rpc = host(['--session', SEARCH_SESSION, '--', process.execPath, fsServer, base], env);
    try {
      await rpc.call('initialize', INIT);
      await expectSameSearchAnswers(async (args) => {
        const answer = await rpc.call('tools/call', { name: 'spill_search', arguments: { ...args } });
        return { text: text(answer), isError: (answer.result as { isError?: boolean } | undefined)?.isError === true };
      }, reference);
    } finally {
      await rpc.end();
    }
  });
});
