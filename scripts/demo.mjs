// `pnpm demo` runs this after `turbo run build`: the walk-through lives in the private
// workspace package examples/demo (typed, linted and tested like the rest).
await import('../examples/demo/dist/main.js');
