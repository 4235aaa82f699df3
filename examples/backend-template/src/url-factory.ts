import type { SpillBackend, SpillCatalog, SpillReader } from '@spillway/core';
import { createTemplateBackend, type TemplateArtifact } from './template-backend.js';

/** The URL scheme the template answers, as registered with `SPILLWAY_BACKENDS`. */
export const TEMPLATE_URL_SCHEME = 'spill+template:';

// One Map per store name: every backend opened on `spill+template://notes` in this process
// sees what the others saved, as backends on one bucket would.
const stores = new Map<string, Map<string, TemplateArtifact>>();

/**
 * Makes the template backend for a URL, so that `spillway` can select it by URL:
 * `SPILLWAY_BACKENDS=spill+template=<this module> spillway ls --store spill+template://notes`.
 * The host names the store (a Map of this process); `?maxArtifactBytes=N` sets the size
 * limit. This is the export a backend module gives `spillway`: a function named
 * `createSpillwayBackend` that takes the URL and returns the backend, synchronously.
 *
 * @throws TypeError for a URL of another scheme, without a store name, or with a
 * `maxArtifactBytes` that is not a whole number
 */
export function createSpillwayBackend(url: URL): SpillBackend & { readonly reader: SpillReader; readonly catalog: SpillCatalog } {
  if (url.protocol !== TEMPLATE_URL_SCHEME) throw new TypeError(`createTemplateBackend: expected a ${TEMPLATE_URL_SCHEME}//<store> URL, got ${url.protocol}`);
  if (url.host === '') throw new TypeError('createTemplateBackend: name the store, as in spill+template://notes');
  const limit = url.searchParams.get('maxArtifactBytes');
  if (limit !== null && !/^\d+$/.test(limit)) throw new TypeError(`createTemplateBackend: maxArtifactBytes must be a whole number of bytes, got '${limit}'`);
  let store = stores.get(url.host);
  if (store === undefined) {
    store = new Map();
    stores.set(url.host, store);
  }
  return createTemplateBackend({ store, ...(limit === null ? {} : { maxArtifactBytes: Number(limit) }) });
}
