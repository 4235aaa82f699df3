/* global clearTimeout */
// Runs inside a network namespace that has only loopback: starts a fake model server on
// 127.0.0.1 that scripts the tool calls and records every tool result the host sends back,
// then runs the host against it. Usage: node runner.mjs <config.json>
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const results = [];
const requests = [];
const seen = [];
// The tool list of the first request that offers tools, to diagnose a host's wire format.
let toolsSeen;
let lastLocator = '';

function locatorIn(text) {
  const match = /stored at: (\/[^\s"\\]+?)\. /.exec(text);
  return match?.[1];
}

// The port of the page server (`config.page`), for `{PAGE_PORT}` in a step.
let pagePort = '';

function fill(value) {
  return JSON.parse(JSON.stringify(value).replaceAll('{LOCATOR}', lastLocator).replaceAll('{PAGE_PORT}', pagePort));
}

// A request is answered with `reply.text` when its first message holds `reply.when`: a
// sub-agent's own turn, or the small model's request of a web fetch.
function replyFor(body) {
  const first = body.messages?.[0];
  const text = first === undefined ? '' : textOf(first.content);
  return (config.replies ?? []).find((reply) => text.includes(reply.when));
}

function recordResults(texts) {
  for (let i = results.length; i < texts.length; i++) {
    results.push(texts[i]);
    lastLocator = locatorIn(texts[i]) ?? lastLocator;
  }
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b?.text === 'string' ? b.text : JSON.stringify(b))).join('');
  return JSON.stringify(content);
}

// --- Anthropic Messages API (Claude Code) ---------------------------------------------
function anthropicToolResults(body) {
  const texts = [];
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) if (block.type === 'tool_result') texts.push(textOf(block.content));
  }
  return texts;
}

function anthropicAnswer(res, step, index, text = 'done') {
  const events = [];
  const send = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { id: `msg_${index}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  if (step === undefined) {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${index}`, name: step.name, input: {} } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(fill(step.args)) } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: step === undefined ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.join(''));
}

// --- Gemini API (Gemini CLI) --------------------------------------------------------------
function geminiToolResults(body) {
  const texts = [];
  for (const content of body.contents ?? []) {
    for (const part of content.parts ?? []) if (part.functionResponse !== undefined) texts.push(JSON.stringify(part.functionResponse.response));
  }
  return texts;
}

function geminiAnswer(res, step, stream) {
  const part = step === undefined ? { text: 'done' } : { functionCall: { name: step.name, args: fill(step.args) } };
  const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } };
  if (stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(chunk)}\n\n`);
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
  }
}

// --- OpenAI Responses API (Codex) ----------------------------------------------------------
function responsesToolResults(body) {
  const texts = [];
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') texts.push(textOf(item.output));
  }
  return texts;
}

function responsesAnswer(res, step, index) {
  const id = `resp_${index}`;
  const item =
    step === undefined
      ? { type: 'message', id: `msg_${index}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] }
      : { type: 'function_call', id: `fc_${index}`, call_id: `call_${index}`, name: step.name, ...(step.namespace === undefined ? {} : { namespace: step.namespace }), arguments: JSON.stringify(fill(step.args)), status: 'completed' };
  const events = [
    { type: 'response.created', response: { id, status: 'in_progress', output: [] } },
    { type: 'response.output_item.added', output_index: 0, item },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: { id, status: 'completed', output: [item], usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } } },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
}

// --- OpenAI Chat Completions, streamed (OpenCode) -------------------------------------------
function chatToolResults(body) {
  return (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => textOf(m.content));
}

function chatAnswer(res, step, index) {
  const base = { id: `chatcmpl_${index}`, object: 'chat.completion.chunk', created: 1, model: 'fake-model' };
  const chunks =
    step === undefined
      ? [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'done' }, finish_reason: null }] }, { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]
      : [
          { ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: `call_${index}`, type: 'function', function: { name: step.name, arguments: JSON.stringify(fill(step.args)) } }] }, finish_reason: null }] },
          { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
        ];
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      body = {};
    }
    requests.push({ method: req.method, url: req.url, bytes: Buffer.concat(chunks).length });
    // Which of the strings the test watches for reached the model (instructions included).
    const raw = Buffer.concat(chunks).toString('utf8');
    for (const needle of config.watch ?? []) if (!seen.includes(needle) && raw.includes(needle)) seen.push(needle);
    if (toolsSeen === undefined && Array.isArray(body.tools) && body.tools.length > 0) toolsSeen = JSON.stringify(body.tools).slice(0, 20_000);
    if (config.api === 'anthropic' && req.url.startsWith('/v1/messages')) {
      if (req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      const reply = replyFor(body);
      if (reply !== undefined) return anthropicAnswer(res, undefined, requests.length, reply.text);
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
      const texts = anthropicToolResults(body);
      if (!hasTools) return anthropicAnswer(res, undefined, requests.length);
      recordResults(texts);
      return anthropicAnswer(res, config.steps[texts.length], requests.length);
    }
    if (config.api === 'gemini' && req.url.includes(':')) {
      const stream = req.url.includes('streamGenerateContent');
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
      if (req.url.includes(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      const texts = geminiToolResults(body);
      if (!hasTools) return geminiAnswer(res, undefined, stream);
      recordResults(texts);
      return geminiAnswer(res, config.steps[texts.length], stream);
    }
    if (config.api === 'openai-responses' && req.url.startsWith('/v1/responses')) {
      const texts = responsesToolResults(body);
      recordResults(texts);
      return responsesAnswer(res, config.steps[texts.length], requests.length);
    }
    if (config.api === 'openai-chat' && req.url.startsWith('/v1/chat/completions')) {
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
      const texts = chatToolResults(body);
      if (!hasTools) return chatAnswer(res, undefined, requests.length);
      recordResults(texts);
      return chatAnswer(res, config.steps[texts.length], requests.length);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{}');
  });
});

// A web page served on 127.0.0.1 (`config.page`: body, and key and cert files for https),
// for a host's fetch tool; a host trusts the cert through NODE_EXTRA_CA_CERTS.
async function startPage() {
  if (config.page === undefined) return;
  const serve = (req, res) => {
    res.writeHead(200, { 'content-type': config.page.contentType ?? 'text/plain; charset=utf-8' });
    res.end(config.page.body);
  };
  const page = config.page.keyFile === undefined ? createServer(serve) : createHttpsServer({ key: readFileSync(config.page.keyFile), cert: readFileSync(config.page.certFile) }, serve);
  await new Promise((done) => page.listen(0, '127.0.0.1', done));
  page.unref();
  pagePort = String(page.address().port);
}

await startPage();
server.listen(0, '127.0.0.1', () => {
  const port = String(server.address().port);
  const sub = (v) => v.replaceAll('{PORT}', port);
  const env = Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, sub(v)]));
  const child = spawn(config.command[0], config.command.slice(1).map(sub), { cwd: config.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  const timer = setTimeout(() => child.kill('SIGKILL'), config.timeoutMs);
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    writeFileSync(config.recordFile, JSON.stringify({ code, signal, results, requests, toolsSeen, seen, stdout: stdout.slice(-20_000), stderr }));
    server.close();
    process.exit(0);
  });
});
