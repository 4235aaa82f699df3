#!/usr/bin/env bash
# Regenerates the list corpus: real outputs of real tools whose answer is a list, run where
# the script runs, each written to outputs/<name>.txt (stdout and stderr together). Needs
# node, npm (the registry is asked by the npm-view cases; its search endpoint is not reachable here), pnpm's install of
# this repository (vitest), git, find, grep, ls, jq. jest and mocha are installed into a
# temporary directory with npm.
#   usage: bash generate.sh [name...]
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../../.." && pwd)"
OUT="$HERE/outputs"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/spillway-lists-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

run_case() {
  local name="$1"
  shift
  if [ "${#WANT[@]}" -gt 0 ] && [[ ! " ${WANT[*]} " == *" $name "* ]]; then return; fi
  local dir="$WORK/$name"
  mkdir -p "$dir"
  (cd "$dir" && "$@") >"$OUT/$name.txt" 2>&1 || true
  sed -i "s#$WORK/$name#/work/$name#g; s#$WORK#/work#g" "$OUT/$name.txt"
}
WANT=("$@")

failing_tests() { # a small suite, one test failing in the middle
  mkdir -p test
  for i in $(seq 1 40); do
    if [ "$i" = 23 ]; then
      printf "const assert = require('node:assert');\ndescribe('parser %s', () => { it('keeps the trailing comma', () => { assert.strictEqual('a,b'.split(',').length, 3); }); it('reads case %s', () => { assert.ok(true); }); });\n" "$i" "$i" >"test/t$i.test.js"
    else
      printf "const assert = require('node:assert');\ndescribe('parser %s', () => { it('reads case %s', () => { assert.ok(true); }); it('reads case %s twice', () => { assert.ok(true); }); });\n" "$i" "$i" "$i" >"test/t$i.test.js"
    fi
  done
}

run_case find-usr-share-txt find /usr/share -name '*.txt'
run_case ls-l-usr-bin ls -l /usr/bin
run_case git-log-oneline git -C "$REPO" log --oneline c2dd608
run_case git-log-oneline-stat sh -c "git -C '$REPO' log --oneline --stat -n 60 c2dd608"
run_case grep-rn-node-modules sh -c "cd '$REPO/node_modules/.pnpm' && grep -rn --include=*.d.ts 'export declare function' typescript@*/node_modules/typescript/lib/typescript.d.ts zod@*/node_modules/zod/v4/core/*.d.ts | head -3000"
run_case grep-rn-short sh -c "cd '$REPO' && grep -rn 'utf8ByteLength' packages/*/src"
run_case npm-view-versions npm view --json typescript versions
run_case npm-view-json npm view --json vitest
run_case pnpm-list-json sh -c "cd '$REPO' && pnpm list --json --depth 0 -r"
run_case npm-ls-json sh -c "cd '$REPO' && npm ls --json --all 2>/dev/null | head -4000"
run_case pnpm-list-ndjson sh -c "cd '$REPO' && pnpm list --json --depth 0 -r | jq -c '.[] | {name, version, path, dependencies: (.dependencies // {} | keys)}'"
run_case npm-view-time-ndjson sh -c "npm view --json vite time | jq -c 'to_entries[] | {version: .key, published: .value}'"
run_case ls-1-nl sh -c "ls -1 /usr/lib/x86_64-linux-gnu | nl"
run_case dpkg-query-bulleted sh -c "dpkg-query -W -f='- \${Package} \${Version}\n'"
run_case apt-cache-search apt-cache search --names-only '^python3-d'
run_case git-ls-files sh -c "git -C '$REPO' ls-files"

run_case vitest-json-report sh -c "failing_tests() { :; }; mkdir -p test; for i in \$(seq 1 40); do if [ \$i = 23 ]; then printf \"import { describe, it, expect } from 'vitest';\\ndescribe('parser \$i', () => { it('keeps the trailing comma', () => { expect('a,b'.split(',').length).toBe(3); }); it('reads case \$i', () => { expect(1).toBe(1); }); });\\n\" >test/t\$i.test.js; else printf \"import { describe, it, expect } from 'vitest';\\ndescribe('parser \$i', () => { it('reads case \$i', () => { expect(1).toBe(1); }); it('reads case \$i twice', () => { expect(2).toBe(2); }); });\\n\" >test/t\$i.test.js; fi; done; echo '{\"type\":\"module\"}' >package.json; '$REPO/node_modules/.bin/vitest' run --reporter=json --root . 2>/dev/null"
if [ "${#WANT[@]}" -eq 0 ] || [[ " ${WANT[*]} " == *" jest-json-report "* || " ${WANT[*]} " == *" mocha-json-report "* ]]; then
  TOOLS="$WORK/tools"
  mkdir -p "$TOOLS" && (cd "$TOOLS" && npm init -y >/dev/null && npm install --no-audit --no-fund jest@30 mocha@11 >/dev/null 2>&1)
  run_case jest-json-report sh -c "$(declare -f failing_tests); failing_tests; echo '{}' >package.json; '$TOOLS/node_modules/.bin/jest' --json --rootDir . 2>/dev/null"
  run_case mocha-json-report sh -c "$(declare -f failing_tests); failing_tests; '$TOOLS/node_modules/.bin/mocha' --reporter json 'test/*.test.js' 2>/dev/null"
fi
