import type { FileSinkBug } from './reference-file-sink.js';

/**
 * For each deliberate defect of the reference file sink, tests of the file-sink suite that
 * must fail because of it (titles are matched as substrings of the test's title).
 */
export const EXPECTED_FILE_SINK_FAILURES: Readonly<Record<FileSinkBug, readonly string[]>> = {
  'visible-before-publish': ['the temporary file is invisible until publish'],
  'publish-size-from-writes': ['a child process writes its stdout and stderr straight into the descriptor', 'any positioned writes and truncations publish exactly the bytes they left'],
  'close-leaves-temp': ['close without publish leaves nothing behind'],
  'publish-error-leaves-temp': ['a publish with an aborted signal rejects with SPILL_ABORTED, publishes nothing and removes the temporary file', 'a storage failure at publish rejects'],
  'write-after-publish-accepted': ['after publish, read still works, write rejects with SPILL_STORAGE_FAILED'],
  'close-rejects-twice': ['close is idempotent, never rejects, and closes the descriptor'],
  'ignores-open-abort': ['an already-aborted signal makes open reject with SPILL_ABORTED'],
  'publish-as-text': ['publish answers the exact size and a locator the reader reads back byte for byte'],
  'write-appends': ['positioned writes land where they are told', 'a positioned write leaves the descriptor at offset 0'],
};

/** The describe title of the control run (the reference file sink without a bug). */
export const FILE_SINK_CONTROL_NAME = 'control: reference file sink without bugs';

/** The describe title of the run for `bug`. */
export function fileSinkMutantName(bug: FileSinkBug): string {
  return `mutant: ${bug}`;
}
