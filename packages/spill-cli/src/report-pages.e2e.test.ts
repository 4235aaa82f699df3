// The report pages (`audit --html`, `stats --html`) as a person sees them: loaded from a file
// in a real headless Chromium, which must draw every chart with data, log no error and
// fetch nothing. Chromium is Debian's (`apt-get install -y chromium`); the browser is never
// downloaded. SPILLWAY_SKIP_BROWSER_TESTS=1 skips this file where no Chromium can be had.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { toStored, USAGE_FILE, type UsageEvent } from '@spillway/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';

const CHROMIUM = process.env.SPILLWAY_CHROMIUM ?? '/usr/bin/chromium';
const SKIP = process.env.SPILLWAY_SKIP_BROWSER_TESTS === '1';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const HOSTILE = '<img src=x onerror=alert(1)>';

let dir: string;
let context: BrowserContext | undefined;

/** The browser, or a failure that says how to get one. */
function browser(): BrowserContext {
  if (context !== undefined) return context;
  throw new Error(`Chromium is not at ${CHROMIUM}: install Debian's (apt-get install -y chromium, as root) or point SPILLWAY_CHROMIUM at one; SPILLWAY_SKIP_BROWSER_TESTS=1 skips these tests.`);
}

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: dir, SPILLWAY_USAGE_DIR: join(dir, 'usage'), NO_COLOR: '1' });
const text = (kb: number, tag: string): string => Array.from({ length: kb * 16 }, (_, i) => `${tag} row ${String(i).padStart(6, '0')} ........................................`).join('\n');

/** A generic transcript: three sessions, built-in and MCP tools, one tool named to inject markup. */
function writeTranscript(path: string): void {
  const calls = [
    { session: 's1', tool: 'Bash', input: { command: 'npm test' }, output: text(60, 'test') },
    { session: 's1', tool: 'read_file', server: 'filesystem', input: { path: 'a.log' }, output: text(40, 'log') },
    { session: 's2', tool: 'list_issues', server: 'github', input: {}, output: text(90, 'issue') },
    { session: 's2', tool: HOSTILE, server: `<script>alert(2)</script>`, input: {}, output: text(30, 'evil') },
    { session: 's3', tool: 'Bash', input: { command: 'ls' }, output: 'a\nb\n' },
  ];
  writeFileSync(path, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
}

/** A usage log: two sessions over an hour, spills, passes and reads, MCP tools by Claude Code's names. */
function writeUsage(): void {
  const lines: string[] = [];
  const at = Date.UTC(2026, 0, 5, 9, 0, 0);
  const record = (event: UsageEvent, minute: number): void => {
    lines.push(JSON.stringify(toStored(event, at + minute * 60_000)));
  };
  const spill = (session: string, tool: string, kb: number, minute: number, artifact: string): void => {
    record({ kind: 'spilled', surface: 'hook', host: 'claude-code', tool, session, artifact, bytes: kb * 1024, shownBytes: 2048 }, minute);
  };
  spill('one', 'Bash', 300, 1, 'a1');
  spill('one', 'mcp__github__list_issues', 80, 5, 'a2');
  spill('one', HOSTILE, 40, 9, 'a3');
  spill('two', 'mcp__filesystem__read_file', 2000, 20, 'b1');
  spill('two', 'Bash', 30, 50, 'b2');
  for (const [minute, bytes] of [[2, 300], [3, 5000], [21, 12_000], [40, 900]] as const) {
    record({ kind: 'passed', surface: 'hook', host: 'claude-code', tool: 'Read', session: minute < 20 ? 'one' : 'two', bytes }, minute);
  }
  record({ kind: 'read', surface: 'read', artifact: 'a1' }, 2);
  record({ kind: 'read', surface: 'grep', artifact: 'b1' }, 30);
  mkdirSync(join(dir, 'usage'), { mode: 0o700 });
  writeFileSync(join(dir, 'usage', USAGE_FILE), lines.join('\n') + '\n', { mode: 0o600 });
}

interface Rendered {
  readonly title: string;
  readonly charts: readonly { name: string; marks: number; width: number; height: number }[];
  readonly empty: number;
  readonly active: number;
  readonly resources: number;
  readonly bodyText: string;
  readonly errors: readonly string[];
  readonly requests: readonly string[];
  /** The full-page screenshot. */
  readonly png: string;
}

/** Runs in the page (as text: this package is typed without the DOM): what the browser made of it. */
const READ_PAGE = `(() => ({
  title: document.title,
  charts: [...document.querySelectorAll('svg.chart')].map((svg) => {
    const box = svg.getBoundingClientRect();
    return { name: svg.getAttribute('data-chart') ?? '', marks: svg.querySelectorAll('.mark').length, width: box.width, height: box.height };
  }),
  empty: document.querySelectorAll('.empty').length,
  // Anything that could run or fetch: an injected name must have stayed text.
  active: document.querySelectorAll('script, img, iframe, link, object, embed, [onerror], [onload]').length,
  resources: performance.getEntriesByType('resource').length,
  bodyText: document.body.innerText,
}))()`;

/** Loads `file` from a file:// URL and reads what the browser made of it; saves a screenshot next to it. */
async function render(file: string): Promise<Rendered> {
  const url = pathToFileURL(file).href;
  const page = await browser().newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  try {
    await page.goto(url, { waitUntil: 'load' });
    const seen = await page.evaluate<Omit<Rendered, 'errors' | 'requests' | 'png'>>(READ_PAGE);
    const shots = process.env.SPILLWAY_SCREENSHOT_DIR ?? dir;
    const png = join(shots, `${seen.title.replace(/[^a-z]+/gi, '-')}.png`);
    await page.screenshot({ path: png, fullPage: true });
    return { ...seen, errors, requests, png };
  } finally {
    await page.close();
  }
}

function expectDrawn(r: Rendered, charts: readonly string[]): void {
  expect(r.errors).toEqual([]);
  expect(r.requests).toEqual([]);
  expect(r.resources).toBe(0);
  expect(r.active).toBe(0);
  expect(r.empty).toBe(0);
  expect(r.charts.map((c) => c.name)).toEqual(charts);
  for (const c of r.charts) {
    expect(c.marks, `chart ${c.name} has no data mark`).toBeGreaterThan(0);
    expect(c.width).toBeGreaterThan(100);
    expect(c.height).toBeGreaterThan(50);
  }
  expect(r.bodyText).toContain(HOSTILE);
  expect(statSync(r.png).size).toBeGreaterThan(10_000);
}

describe.skipIf(SKIP)('report pages in a headless browser', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'report-pages-'));
    // Without it each test fails with browser()'s message, counted as a failure, not a skip.
    if (!existsSync(CHROMIUM)) return;
    ensureBuilt();
    mkdirSync(join(dir, 'profile'), { mode: 0o700 });
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: ARGS, offline: true });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the checks see a request, a script, a console error and an empty chart', async () => {
    const page = join(dir, 'tampered.html');
    writeFileSync(
      page,
      `<!doctype html><html><head><title>tampered</title></head><body><svg class="chart" data-chart="empty"></svg>` +
        `<img src="http://127.0.0.1:9/x.png"><script>console.error('boom')</script></body></html>`,
    );
    const seen = await render(page);
    expect(seen.requests).toContain('http://127.0.0.1:9/x.png');
    expect(seen.errors).toContainEqual(expect.stringContaining('boom'));
    expect(seen.active).toBe(2);
    expect(seen.charts).toEqual([expect.objectContaining({ name: 'empty', marks: 0 })]);
    expect(() => {
      expectDrawn(seen, ['empty']);
    }).toThrow();
  });

  it('spillway audit --html: the caps, tools and servers charts, names as text', async () => {
    browser();
    const transcript = join(dir, 'calls.jsonl');
    writeTranscript(transcript);
    const page = join(dir, 'audit.html');
    const r = await spillway(['audit', '--host', 'generic', '--cap', '16384', '--html', page, transcript], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const seen = await render(page);
    expect(seen.title).toBe('spillway audit: generic');
    expectDrawn(seen, ['caps', 'tools', 'servers']);
    expect(seen.bodyText).toContain('<script>alert(2)</script>');
  });

  it('spillway stats --html: sizes, tools, servers and a timeline per session; never overwrites', async () => {
    browser();
    writeUsage();
    const page = join(dir, 'stats.html');
    const r = await spillway(['stats', '--html', page], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`(the page is in ${page})`);
    const seen = await render(page);
    expect(seen.title).toBe('spillway stats');
    expectDrawn(seen, ['sizes', 'tools', 'servers', 'sessions']);
    const marks = Object.fromEntries(seen.charts.map((c) => [c.name, c.marks]));
    // 9 results and 2 reads over two sessions; 5 tools; 2 servers; sizes in 6 buckets.
    expect(marks).toEqual({ sizes: 6, tools: 5, servers: 2, sessions: 11 });
    const before = readFileSync(page, 'utf8');
    const again = await spillway(['stats', '--html', page], { env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('[FILE_EXISTS]');
    expect(readFileSync(page, 'utf8')).toBe(before);
    const one = await spillway(['stats', '--session', 'two', '--html', join(dir, 'two.html')], { env: env() });
    expect(one.code).toBe(0);
    const two = await render(join(dir, 'two.html'));
    expect(two.title).toBe('spillway stats: session two');
    expect(Object.fromEntries(two.charts.map((c) => [c.name, c.marks]))).toEqual({ sizes: 4, tools: 3, servers: 1, sessions: 5 });
  });
});
