import {
  type ListOptions,
  type SpillCatalog,
  type SpillEntry,
  type SpillLocator,
  callId,
  isSpillError,
  sessionId,
} from '@spillway/core';
import { LOCAL_RETRIEVAL_HINT } from '@spillway/local';
import { MEMORY_RETRIEVAL_HINT, type MemoryBackend, createMemoryBackend } from '@spillway/memory';
import { formatSpillNotice } from '@spillway/core/notice';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainMissingArtifacts } from './missing.js';
import { DEFAULT_KNOWN_HINTS, keepReferenced } from './references.js';
import { createRetention } from './retention.js';

const MIN = 60_000;

function save(backend: MemoryBackend, session: string, content: string): Promise<SpillLocator> {
  return backend
    .saveText({
      owner: { sessionId: sessionId(session) },
      source: { toolName: 'web_fetch', callId: callId('c') },
      suggestedName: 'web_fetch.txt',
      content,
    })
    .then((ref) => ref.locator);
}

async function locators(catalog: SpillCatalog): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const e of catalog.list()) out.add(e.locator);
  return out;
}

describe('retention over the memory backend', () => {
  it('knows both backends\' retrieval hints without being told', () => {
    expect(DEFAULT_KNOWN_HINTS).toContain(LOCAL_RETRIEVAL_HINT);
    expect(DEFAULT_KNOWN_HINTS).toContain(MEMORY_RETRIEVAL_HINT);
  });

  it('keeps what a JSON transcript references and trims the rest to the quota', async () => {
    let now = Date.UTC(2025, 0, 1);
    const backend = createMemoryBackend({ now: () => now });
    const all: SpillLocator[] = [];
    for (let i = 0; i < 10; i++) {
      all.push(await save(backend, `s${String(i % 2)}`, 'm'.repeat(1000)));
      now += 10 * MIN;
    }
    const referenced = all[1] as SpillLocator;
    const line = JSON.stringify({
      role: 'tool',
      content: `…\n\n${formatSpillNotice({ omittedBytes: 900, locator: referenced, retrievalHint: MEMORY_RETRIEVAL_HINT })}`,
    });
    const report = await createRetention({
      catalog: backend.catalog,
      now: () => now,
      maxTotalBytes: 3000,
      keep: await keepReferenced([line]),
    }).sweep();
    const left = await locators(backend.catalog);
    expect([...left].sort()).toEqual([referenced, all[8], all[9]].sort());
    expect(report.limits.total).toEqual({ limit: 3000, bytes: 3000, met: true });
    expect(report.temp).toBeNull(); // the memory backend has no temp files
  });

  it('answers a read of a swept artifact with a code and a message a model can act on', async () => {
    let now = 0;
    const backend = createMemoryBackend({ now: () => now });
    const loc = await save(backend, 's', 'old result\n');
    now += 60 * MIN;
    await createRetention({ catalog: backend.catalog, now: () => now, maxAgeMs: 30 * MIN }).sweep();
    const error: unknown = await explainMissingArtifacts(backend.reader)
      .read(loc)
      .catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_EXPIRED') || isSpillError(error, 'SPILL_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toMatch(/run the tool that produced it again/i);
  });

  it('loses no artifact saved while a sweep runs (property, real memory backend, shared clock)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ageMin: fc.nat({ max: 120 }), bytes: fc.nat({ max: 400 }), session: fc.constantFrom('a', 'b') }), {
          maxLength: 25,
        }),
        fc.array(fc.record({ at: fc.nat({ max: 80 }), bytes: fc.nat({ max: 400 }), session: fc.constantFrom('a', 'b', 'c') }), {
          maxLength: 12,
        }),
        fc.record({
          maxAgeMs: fc.option(fc.nat({ max: 120 }).map((m) => m * MIN), { nil: undefined }),
          maxTotalBytes: fc.nat({ max: 3000 }),
          maxSessionBytes: fc.option(fc.nat({ max: 1500 }), { nil: undefined }),
          graceMs: fc.constantFrom(0, MIN),
        }),
        async (before, during, limits) => {
          let now = Date.UTC(2025, 0, 1);
          const backend = createMemoryBackend({ now: () => now });
          for (const b of [...before].sort((x, y) => y.ageMin - x.ageMin)) {
            now = Date.UTC(2025, 0, 1) + (120 - b.ageMin) * MIN;
            await save(backend, b.session, 'o'.repeat(b.bytes));
          }
          now = Date.UTC(2025, 0, 1) + 121 * MIN;
          // Every listing step lets pending saves happen, stamped by the same moving clock.
          const saved: SpillLocator[] = [];
          let step = 0;
          const catalog: SpillCatalog = {
            delete: (loc, o) => backend.catalog.delete(loc, o),
            list: async function* (options?: ListOptions): AsyncGenerator<SpillEntry> {
              for await (const e of backend.catalog.list(options)) {
                yield e;
                step += 1;
                for (const d of during) {
                  if (d.at === step) {
                    now += 3;
                    saved.push(await save(backend, d.session, 'n'.repeat(d.bytes)));
                  }
                }
              }
            },
          };
          await createRetention({ catalog, now: () => now, ...limits }).sweep();
          const left = await locators(backend.catalog);
          for (const loc of saved) expect(left.has(loc)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
