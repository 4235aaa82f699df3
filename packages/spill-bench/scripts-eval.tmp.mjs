import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
const NEW = await import('/work/wt/lists/packages/spill-policy/dist/index.js');
const OLD = await import('/work/main/packages/spill-policy/dist/index.js');
const { createMemoryBackend } = await import('/work/wt/lists/packages/spill-memory/dist/index.js');
const exec = { toolName: 'bash', callId: 'c', sessionId: 's' };
const dirs = process.argv.slice(2);
const held = (names) => { const d = (n) => createHash('sha256').update(n).digest('hex'); const s = [...names].sort((a, b) => (d(a) < d(b) ? -1 : d(a) > d(b) ? 1 : 0)); return new Set(s.filter((_, i) => i % 3 === 0)); };
async function prev(mod, text, cap, preview) {
  const p = mod.createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap, preview });
  const out = await p.applyToResult(exec, { content: [{ type: 'text', text }] });
  return out.content[0].text;
}
for (const dir of dirs) {
  const labels = JSON.parse(readFileSync(`${dir}/labels.json`, 'utf8'));
  const names = Object.keys(labels).sort();
  const h = held(names);
  for (const cap of [2048, 8192, 32768]) {
    const tot = { tuned: {}, held: {} };
    const lost = [];
    for (const name of names) {
      const { kind, needles } = labels[name];
      if (kind === 'lookup') continue;
      const text = readFileSync(`${dir}/outputs/${name}.txt`, 'utf8');
      const n = await prev(NEW, text, cap, 'salient');
      const ht = await prev(NEW, text, cap, 'head-tail');
      const old = await prev(OLD, text, cap, 'salient');
      const noticeLen = Buffer.byteLength(ht) - Buffer.byteLength(ht.slice(0, ht.lastIndexOf('\n\n(Omitted')));
      const head = Buffer.byteLength(text) <= cap ? text : Buffer.from(text).subarray(0, Math.max(0, cap - noticeLen)).toString();
      const part = h.has(name) ? 'held' : 'tuned';
      const k = (p) => needles.filter((x) => p.includes(x)).length;
      const r = { new: k(n), head: k(head), ht: k(ht), old: k(old), all: needles.length };
      for (const [key, v] of Object.entries(r)) tot[part][key] = (tot[part][key] ?? 0) + v;
      if (kind === 'failure') for (const key of ['new','head','ht','old']) tot[part]['F'+key] = (tot[part]['F'+key] ?? 0) + (r[key] === r.all ? 1 : 0);
      if (r.new < r.head || (r.ht === r.all && r.new < r.all)) lost.push(`${name}(${part}) new=${r.new} head=${r.head} ht=${r.ht}`);
      if (process.env.V) console.log(cap, name, part, JSON.stringify(r));
    }
    console.log(dir.split('/').pop(), cap, 'needles kept', JSON.stringify(tot), 'LOST', lost.join('; '));
  }
}
