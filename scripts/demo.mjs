// Placeholder until the CLI issue replaces it with the full walk-through.
console.log('spillway demo: not built yet');
