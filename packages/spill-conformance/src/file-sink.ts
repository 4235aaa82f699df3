/**
 * `@spillway/conformance/file-sink`: the conformance suite of the Node-only file sink
 * (`SpillFileSink` of `@spillway/core/file-sink`), for a backend that stores files on this
 * host and offers one.
 *
 * @packageDocumentation
 */
export { describeSpillFileSink } from './describe-spill-file-sink.js';
export type { DescribeSpillFileSinkOptions, SpillFileSinkHooks } from './file-sink-options.js';
