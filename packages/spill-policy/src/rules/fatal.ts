import type { SalientRule } from './rule.js';

/** Severity of a fatal message: a crash, a panic, an uncaught exception, a traceback's start. */
export const FATAL = 5;

/** A fatal message. */
export const fatal: SalientRule = {
  name: 'fatal',
  severity: FATAL,
  pattern:
    /\b(?:fatal|FATAL|Fatal|panic|PANIC|panicked|Segmentation fault|core dumped|Aborted|Uncaught|uncaught|Unhandled|unhandled rejection)\b|^Traceback \(most recent call last\)|"level":60|"level":"fatal"/,
  triggers: ['[Ff]atal|FATAL', '[Pp]anic|PANIC', 'Segmentation', 'core dumped', '[Aa]bort', '[Uu]ncaught', '[Uu]nhandled', 'Traceback', '"level":60'],
  unless: [],
  hits: [
    "thread 'main' panicked at src/main.rs:4:5:",
    'Segmentation fault (core dumped)',
    'Illegal instruction (core dumped)',
    'Traceback (most recent call last):',
    'FATAL: password authentication failed for user "app"',
    'Uncaught TypeError: x is not a function',
    '{"level":60,"msg":"cannot bind port"}',
    'Aborted',
  ],
  misses: ['fatalistic views', 'Tracebacks are printed below', 'npm ERR! code ELIFECYCLE'],
};
