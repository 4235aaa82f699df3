import { randomUUID } from 'node:crypto';
import type { ContentBlock, SpillPolicy } from '@spillway/policy';
import type { AnyResult, ResultKind } from './forward.js';

interface ResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: unknown;
  readonly blob?: unknown;
}

interface PromptMessage {
  readonly role: string;
  readonly content: { readonly type: string; readonly text?: unknown };
}

/**
 * Puts results through the policy: a tool result's `content`, a read resource's text
 * `contents`, a prompt's text `messages`. A spilled result keeps one text (the preview and
 * notice) where the whole text was; a tool result also loses its `structuredContent`.
 * Anything with a non-text part (an image, a blob) passes as it is, as the policy passes a
 * tool result with a non-text block.
 */
export class ResultSpiller {
  private readonly policy: SpillPolicy;
  private readonly sessionId: string;
  private readonly spilling: boolean;

  /**
   * @param policy - decides and stores
   * @param sessionId - the session of every spill
   * @param spilling - whether there is a backend at all
   */
  constructor(policy: SpillPolicy, sessionId: string, spilling: boolean) {
    this.policy = policy;
    this.sessionId = sessionId;
    this.spilling = spilling;
  }

  /** The result the host gets. Never throws: a failed spill keeps the result. */
  async apply(kind: ResultKind, name: string, result: AnyResult): Promise<AnyResult> {
    if (!this.spilling) return result;
    if (kind === 'tool') return this.tool(name, result);
    if (kind === 'resource') return this.resource(result);
    return this.prompt(name, result);
  }

  private async shown(toolName: string, content: readonly ContentBlock[], isError: boolean): Promise<string | undefined> {
    const input = { content, ...(isError ? { isError: true } : {}) };
    const out = await this.policy.applyToResult({ toolName, callId: randomUUID(), sessionId: this.sessionId }, input);
    if (out === input) return undefined;
    const block = out.content[0];
    return out.content.length === 1 && block?.type === 'text' ? (block as { text: string }).text : undefined;
  }

  private async tool(name: string, result: AnyResult): Promise<AnyResult> {
    const content = result.content;
    if (!Array.isArray(content)) return result;
    const text = await this.shown(name, content as ContentBlock[], result.isError === true);
    if (text === undefined) return result;
    const { structuredContent: _dropped, ...rest } = result;
    return { ...rest, content: [{ type: 'text', text }] };
  }

  private async resource(result: AnyResult): Promise<AnyResult> {
    if (!Array.isArray(result.contents) || result.contents.length === 0) return result;
    const contents = result.contents as readonly ResourceContents[];
    if (!contents.every((c) => typeof c.text === 'string' && c.blob === undefined)) return result;
    const blocks = contents.map((c) => ({ type: 'text', text: c.text as string }));
    const first = contents[0] as ResourceContents;
    const text = await this.shown('resources/read', blocks, false);
    if (text === undefined) return result;
    return { ...result, contents: [{ uri: first.uri, mimeType: 'text/plain', text }] };
  }

  private async prompt(name: string, result: AnyResult): Promise<AnyResult> {
    if (!Array.isArray(result.messages) || result.messages.length === 0) return result;
    const messages = result.messages as readonly PromptMessage[];
    if (!messages.every((m) => m.content.type === 'text' && typeof m.content.text === 'string')) return result;
    const blocks = messages.map((m) => ({ type: 'text', text: m.content.text as string }));
    const text = await this.shown(`prompt ${name}`, blocks, false);
    if (text === undefined) return result;
    const role = (messages[0] as PromptMessage).role;
    return { ...result, messages: [{ role, content: { type: 'text', text } }] };
  }
}
