import type { SpillBackend } from '@spillway/core';

/** A ref with its hint replaced; anything malformed passes through for the save's own checks. */
function rehint(ref: unknown, hint: string): unknown {
  if (typeof ref !== 'object' || ref === null || typeof (ref as { retrievalHint?: unknown }).retrievalHint !== 'string') return ref;
  return { ...ref, retrievalHint: hint };
}

function rehinted(answer: unknown, hint: string): unknown {
  if (typeof answer !== 'object' || answer === null || typeof (answer as { then?: unknown }).then !== 'function') return answer;
  return (answer as Promise<unknown>).then((ref) => rehint(ref, hint));
}

/**
 * The backend as the policy sees it when a surface names its notice reader: every save's
 * ref carries `hint` instead of the backend's own. Everything else (the reader, the
 * catalog, a failing or malformed save) is the backend's, unchanged.
 */
export function withRetrievalHint(backend: SpillBackend, hint: string): SpillBackend {
  // Defined, not assigned: a frozen backend's own properties are read-only on its heirs.
  const saveText: SpillBackend['saveText'] = (input, options) => rehinted(backend.saveText(input, options), hint) as ReturnType<SpillBackend['saveText']>;
  const saveTextStream: SpillBackend['saveTextStream'] = (input, options) =>
    rehinted(backend.saveTextStream(input, options), hint) as ReturnType<SpillBackend['saveTextStream']>;
  return Object.create(backend, { saveText: { value: saveText }, saveTextStream: { value: saveTextStream } }) as SpillBackend;
}
