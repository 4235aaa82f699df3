import { utf8ByteLength, type GrepOptions, type ReadOptions, type SpillLocator } from '@spillway/core';
import fc from 'fast-check';
import { describe } from 'vitest';
import { contentArbitrary, splitAt, toChunkSource, type ChunkDelivery } from '../arbitraries.js';
import { checkRef, expectSpillRejection, fail, withHarness, type Harness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { checkGrepResult, checkReadResult } from '../reference-reader.js';
import { toStoredText } from '../text.js';
import { testDefiner } from './define-test.js';
import { fcParams } from './fc-params.js';

/** One live artifact in the model. */
interface ModelArtifact {
  readonly content: string;
  readonly session: string;
}

/** The model: a plain Map from locator to what it must hold, plus the deleted locators. */
interface SpillModel {
  readonly live: Map<string, ModelArtifact>;
  readonly gone: string[];
  readonly reader: boolean;
  readonly catalog: boolean;
  readonly readBack: boolean;
}

type Real = Harness<SpillBackendFixture>;
type SpillCommand = fc.AsyncCommand<SpillModel, Real>;

const SESSIONS = ['model-a', 'model-b', 's\uD800', 's\uDFFF'];
const GONE_CODES = ['SPILL_NOT_FOUND', 'SPILL_EXPIRED'] as const;

function pickFrom<T>(items: readonly T[], pick: number): T {
  const item = items[pick % items.length];
  if (item === undefined) return fail('nothing to pick from');
  return item;
}

function pickLive(m: SpillModel, pick: number): [SpillLocator, ModelArtifact] {
  const [locator, artifact] = pickFrom([...m.live.entries()], pick);
  return [locator as SpillLocator, artifact];
}

/** After every command: the catalog lists exactly the live artifacts, with their sizes. */
async function verify(m: SpillModel, real: Real): Promise<void> {
  if (!m.catalog) return;
  const entries = await real.list();
  if (entries.length !== m.live.size) fail(`the catalog lists ${entries.length} artifacts, the model holds ${m.live.size}`);
  const sessionKeys = new Map<string, string>();
  for (const entry of entries) {
    const artifact = m.live.get(entry.locator);
    if (artifact === undefined) return fail(`the catalog lists ${entry.locator}, which the model does not hold`);
    if (entry.bytes !== utf8ByteLength(artifact.content)) fail(`the catalog reports ${entry.bytes} bytes for ${entry.locator}, the model ${utf8ByteLength(artifact.content)}`);
    const known = sessionKeys.get(artifact.session);
    if (known !== undefined && known !== entry.session) fail('one session is listed under two session keys');
    sessionKeys.set(artifact.session, entry.session);
  }
  if (new Set(sessionKeys.values()).size !== sessionKeys.size) fail('two sessions are listed under one session key');
}

class SaveCommand implements SpillCommand {
  constructor(
    readonly session: string,
    readonly name: string,
    readonly content: string,
    readonly cuts: readonly number[] | undefined,
    readonly delivery: ChunkDelivery,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const overrides = { sessionId: this.session, suggestedName: this.name };
    const ref =
      this.cuts === undefined
        ? await real.backend.saveText(real.request(this.content, overrides))
        : await real.backend.saveTextStream(real.streamRequest(toChunkSource(splitAt(this.content, this.cuts), this.delivery), overrides));
    checkRef(ref, utf8ByteLength(this.content), 'save');
    if (m.live.has(ref.locator) || m.gone.includes(ref.locator)) fail(`save returned ${ref.locator}, a locator already handed out`);
    m.live.set(ref.locator, { content: this.content, session: this.session });
    await verify(m, real);
  }
  toString(): string {
    const how = this.cuts === undefined ? 'saveText' : `saveTextStream(${this.delivery}, cuts ${JSON.stringify(this.cuts)})`;
    return `${how}(${JSON.stringify(this.session)}, ${JSON.stringify(this.name)}, ${JSON.stringify(this.content)})`;
  }
}

class FailingStreamCommand implements SpillCommand {
  constructor(readonly session: string, readonly partial: string) {}
  check(): boolean {
    return true;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const partial = this.partial;
    const chunks = (async function* () {
      yield partial;
      await new Promise((resolve) => setTimeout(resolve, 0));
      throw new Error('the source failed');
    })();
    await expectSpillRejection('a failing stream', 'SPILL_STREAM_FAILED', () =>
      real.backend.saveTextStream(real.streamRequest(chunks, { sessionId: this.session })),
    );
    await verify(m, real);
  }
  toString(): string {
    return `failingStream(${JSON.stringify(this.session)}, ${JSON.stringify(this.partial)})`;
  }
}

class ReadBackCommand implements SpillCommand {
  constructor(readonly pick: number) {}
  check(m: Readonly<SpillModel>): boolean {
    return m.live.size > 0 && (m.reader || m.readBack);
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const [locator, artifact] = pickLive(m, this.pick);
    const bytes = utf8ByteLength(artifact.content);
    await real.expectStored({ locator, bytes, retrievalHint: 'model' }, artifact.content, `the artifact at ${locator}`);
  }
  toString(): string {
    return `readBack(#${this.pick})`;
  }
}

class ReadCommand implements SpillCommand {
  constructor(readonly pick: number, readonly options: ReadOptions) {}
  check(m: Readonly<SpillModel>): boolean {
    return m.reader && m.live.size > 0;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const [locator, artifact] = pickLive(m, this.pick);
    const reader = real.backend.reader ?? fail('the reader disappeared');
    const problems = checkReadResult(artifact.content, this.options, await reader.read(locator, this.options));
    if (problems.length > 0) fail(`read(${JSON.stringify(this.options)}) of ${JSON.stringify(toStoredText(artifact.content))}: ${problems.join('; ')}`);
  }
  toString(): string {
    return `read(#${this.pick}, ${JSON.stringify(this.options)})`;
  }
}

class GrepCommand implements SpillCommand {
  constructor(readonly pick: number, readonly pattern: string, readonly options: GrepOptions) {}
  check(m: Readonly<SpillModel>): boolean {
    return m.reader && m.live.size > 0;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const [locator, artifact] = pickLive(m, this.pick);
    const reader = real.backend.reader ?? fail('the reader disappeared');
    const problems = checkGrepResult(artifact.content, this.pattern, this.options, await reader.grep(locator, this.pattern, this.options));
    if (problems.length > 0) fail(`grep(${JSON.stringify(this.pattern)}, ${JSON.stringify(this.options)}): ${problems.join('; ')}`);
  }
  toString(): string {
    return `grep(#${this.pick}, ${JSON.stringify(this.pattern)}, ${JSON.stringify(this.options)})`;
  }
}

class ListCommand implements SpillCommand {
  constructor(readonly session: string) {}
  check(m: Readonly<SpillModel>): boolean {
    return m.catalog;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const listed = (await real.list(this.session)).map((e) => e.locator).sort();
    const expected = [...m.live.entries()].filter(([, a]) => a.session === this.session).map(([l]) => l).sort();
    if (JSON.stringify(listed) !== JSON.stringify(expected)) {
      fail(`list({ sessionId: ${JSON.stringify(this.session)} }) yielded ${listed.length} artifacts, the model holds ${expected.length} for it`);
    }
  }
  toString(): string {
    return `list(${JSON.stringify(this.session)})`;
  }
}

class DeleteCommand implements SpillCommand {
  constructor(readonly pick: number) {}
  check(m: Readonly<SpillModel>): boolean {
    return m.catalog && m.live.size > 0;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const [locator] = pickLive(m, this.pick);
    const catalog = real.backend.catalog ?? fail('the catalog disappeared');
    if (!(await catalog.delete(locator))) fail(`delete(${locator}) answered false for a live artifact`);
    m.live.delete(locator);
    m.gone.push(locator);
    await verify(m, real);
  }
  toString(): string {
    return `delete(#${this.pick})`;
  }
}

class DeletedCommand implements SpillCommand {
  constructor(readonly pick: number) {}
  check(m: Readonly<SpillModel>): boolean {
    return (m.catalog || m.reader) && m.gone.length > 0;
  }
  async run(m: SpillModel, real: Real): Promise<void> {
    const locator = pickFrom(m.gone, this.pick) as SpillLocator;
    const { reader, catalog } = real.backend;
    if (reader !== undefined) await expectSpillRejection('read of a deleted artifact', GONE_CODES, () => reader.read(locator));
    if (catalog !== undefined && (await catalog.delete(locator))) fail('delete of a deleted artifact answered true');
    await verify(m, real);
  }
  toString(): string {
    return `touchDeleted(#${this.pick})`;
  }
}

const session = fc.constantFrom(...SESSIONS);
const small = contentArbitrary({ maxPieces: 12 });
const grepPattern = fc.constantFrom('a', '\u00e9', '\\d', '^', '$', 'x*', '\u{1F600}', '\\r', 'ab|ba');

const COMMANDS: fc.Arbitrary<SpillCommand>[] = [
  fc
    .tuple(session, fc.constantFrom('out.txt', '../x', ''), small, fc.option(fc.array(fc.nat({ max: 60 }), { maxLength: 4 })), fc.constantFrom<ChunkDelivery>('array', 'generator', 'async-generator'))
    .map(([s, name, content, cuts, delivery]) => new SaveCommand(s, name, content, cuts ?? undefined, delivery)),
  fc.tuple(session, small).map(([s, partial]) => new FailingStreamCommand(s, partial)),
  fc.nat().map((pick) => new ReadBackCommand(pick)),
  fc
    .tuple(fc.nat(), fc.record({ offset: fc.integer({ min: 1, max: 12 }), limit: fc.integer({ min: 0, max: 12 }), maxBytes: fc.integer({ min: 4, max: 80 }) }, { requiredKeys: [] }))
    .map(([pick, options]) => new ReadCommand(pick, options)),
  fc
    .tuple(fc.nat(), grepPattern, fc.record({ ignoreCase: fc.boolean(), maxMatches: fc.integer({ min: 0, max: 10 }), maxLineBytes: fc.integer({ min: 8, max: 64 }) }, { requiredKeys: [] }))
    .map(([pick, pattern, options]) => new GrepCommand(pick, pattern, options)),
  fc.oneof(session).map((s) => new ListCommand(s)),
  fc.nat().map((pick) => new DeleteCommand(pick)),
  fc.nat().map((pick) => new DeletedCommand(pick)),
];

/** Registers the model-based test: random command sequences against a plain Map model. */
export function describeModel<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  describe('model-based', () => {
    test('behaves like a Map under random sequences of saves, streams, reads, greps, lists and deletes', async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(COMMANDS, { maxCommands: options.maxCommands }), async (commands) => {
          await withHarness(options, async (real) => {
            const model: SpillModel = {
              live: new Map(),
              gone: [],
              reader: real.backend.reader !== undefined,
              catalog: real.backend.catalog !== undefined,
              readBack: options.hooks.readBack !== undefined,
            };
            await fc.asyncModelRun(() => ({ model, real: real as unknown as Real }), commands);
          });
        }),
        fcParams(options, options.modelRuns),
      );
    });
  });
}
