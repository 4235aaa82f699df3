import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHost, connectProxy, privateDir, serverScript, textOf, type Host } from './test-helpers.js';

const everything = { command: process.execPath, args: [serverScript('server-everything'), 'stdio'] };

describe('server-everything through the proxy', () => {
  let root: { path: string; remove: () => Promise<void> };
  let host: Host;

  beforeAll(async () => {
    root = await privateDir('spill-mcp-root-');
    host = await connectProxy({ upstream: everything, root: root.path, maxInlineBytes: 4096 }, { SPILLWAY_TEST_MARKER: 'passed-through' });
  });

  afterAll(async () => {
    await host.close();
    await root.remove();
  });

  it('mirrors server info, instructions and capabilities, with tools added', () => {
    const direct = host.client.getServerCapabilities();
    expect(host.client.getServerVersion()?.name).toMatch(/everything/i);
    expect(host.client.getInstructions()).toBeTruthy();
    expect(direct?.tools).toBeDefined();
    expect(direct?.prompts).toBeDefined();
    expect(direct?.resources).toBeDefined();
    expect(direct?.logging).toBeDefined();
    expect(direct?.completions).toBeDefined();
  });

  it('hands the server the whole environment, not the SDK minimal one', async () => {
    const result = await host.client.callTool({ name: 'get-env', arguments: {} });
    // The environment is larger than the cap: read the spilled copy back.
    const text = textOf(result);
    const locator = /stored at: (\S+?)\. /.exec(text)?.[1] ?? '';
    const all = locator === '' ? text : textOf(await host.client.callTool({ name: 'spill_grep', arguments: { locator, pattern: 'SPILLWAY_TEST_MARKER', literal: true } }));
    expect(all).toContain('passed-through');
  });

  it('re-emits progress under the caller\'s own token', async () => {
    const seen: number[] = [];
    const result = await host.client.request(
      { method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(result.isError).toBeFalsy();
    // The SDK may drop the last notification before the response arrives.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toBe(1);
  });

  it('cancels: the caller\'s abort ends the call and the proxy stays usable', async () => {
    const controller = new AbortController();
    const call = host.client.request(
      { method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } } },
      CallToolResultSchema,
      { signal: controller.signal, onprogress: () => { controller.abort('enough'); } },
    );
    await expect(call).rejects.toBeDefined();
    const echo = await host.client.callTool({ name: 'echo', arguments: { message: 'still here' } });
    expect(textOf(echo)).toContain('still here');
  });

  it('passes structured content through when small, and drops outputSchema from the list', async () => {
    const { tools } = await host.client.listTools();
    expect(tools.find((t) => t.name === 'get-structured-content')?.outputSchema).toBeUndefined();
    const result = await host.client.request(
      { method: 'tools/call', params: { name: 'get-structured-content', arguments: { location: 'New York' } } },
      CallToolResultSchema,
    );
    expect(result.structuredContent).toBeDefined();
  });

  it('forwards a task-required tool: the task, its status and its result', async () => {
    const created = await host.client.request(
      { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'rivers' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    let status = created.task.status;
    // Polled until it is done, within the test's timeout, not for a fixed number of rounds.
    for (let i = 0; i < 500 && status === 'working'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await host.client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
    }
    expect(status).toBe('completed');
    const result = await host.client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    expect(textOf(result)).toMatch(/rivers/);
  });

  it('forwards prompts, resources, completions, logging and ping', async () => {
    const direct = await connectHost(everything.command, everything.args);
    try {
      const prompts = await host.client.listPrompts();
      expect(prompts).toEqual(await direct.client.listPrompts());
      const prompt = await host.client.getPrompt({ name: 'simple-prompt' });
      expect(prompt.messages.length).toBeGreaterThan(0);
      const resources = await host.client.listResources();
      expect(resources.resources.map((r) => r.uri)).toEqual((await direct.client.listResources()).resources.map((r) => r.uri));
      const templates = await host.client.listResourceTemplates();
      expect(templates.resourceTemplates.length).toBeGreaterThan(0);
      const first = resources.resources[0];
      if (first !== undefined) expect((await host.client.readResource({ uri: first.uri })).contents.length).toBeGreaterThan(0);
      const completion = await host.client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
      expect(completion.completion.values.length).toBeGreaterThan(0);
      await host.client.setLoggingLevel('debug');
      await host.client.ping();
    } finally {
      await direct.close();
    }
  });

  it('passes an image result through untouched (non-text blocks are never spilled)', async () => {
    const result = await host.client.callTool({ name: 'get-tiny-image', arguments: {} });
    expect((result.content as { type: string }[]).some((b) => b.type === 'image')).toBe(true);
  });
});

describe('requests from server-everything to the host, through the proxy', () => {
  let root: { path: string; remove: () => Promise<void> };
  let host: Host;
  const asked: string[] = [];

  beforeAll(async () => {
    root = await privateDir('spill-mcp-root-');
    host = await connectProxy({ upstream: everything, root: root.path }, {}, {
      capabilities: { sampling: {}, roots: { listChanged: true } },
      prepare: (client) => {
        client.setRequestHandler(ListRootsRequestSchema, () => {
          asked.push('roots/list');
          return { roots: [{ uri: 'file:///srv/host-root', name: 'host root' }] };
        });
        client.setRequestHandler(CreateMessageRequestSchema, () => {
          asked.push('sampling/createMessage');
          return { model: 'host-model', role: 'assistant', content: { type: 'text', text: 'an answer from the host' } };
        });
      },
    });
  });

  afterAll(async () => {
    await host.close();
    await root.remove();
  });

  it('tells the server the host supports roots, and answers its roots/list from the host', async () => {
    const result = await host.client.callTool({ name: 'get-roots-list', arguments: {} });
    expect(textOf(result)).toContain('file:///srv/host-root');
    expect(asked).toContain('roots/list');
  });

  it('forwards sampling/createMessage to the host and its answer back', async () => {
    const result = await host.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello' } });
    expect(textOf(result)).toContain('an answer from the host');
    expect(asked).toContain('sampling/createMessage');
  });
});
