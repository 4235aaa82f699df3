#!/usr/bin/env bash
# Regenerates the preview corpus: real outputs of real tools, run where the script runs, each
# written to outputs/<name>.txt (stdout and stderr together, as an agent's shell tool sees
# them). Needs node, pnpm's install of this repository (tsc, vitest, eslint), gcc, g++,
# make, python3 with pytest, cargo, javac, jq, sqlite3, perl, dpkg. Only `npm-view-json`
# asks the npm registry; every other case runs offline.
#   usage: bash generate.sh [name...]
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../../.." && pwd)"
BIN="$REPO/node_modules/.bin"
OUT="$HERE/outputs"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/spillway-corpus-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# Runs a case in a fresh directory; the output file holds everything it printed.
run_case() {
  local name="$1"
  shift
  local dir="$WORK/$name"
  mkdir -p "$dir"
  (cd "$dir" && "$@") >"$OUT/$name.txt" 2>&1 || true
  # Temporary paths differ on every run; make them stable.
  sed -i "s#$WORK/$name#/work/$name#g; s#$WORK#/work#g" "$OUT/$name.txt"
}

ts_project() { # $1 files, $2 file index with an error (0 = none)
  mkdir -p src
  printf '{"compilerOptions":{"strict":true,"target":"ES2022","module":"NodeNext","outDir":"dist","declaration":true,"composite":true},"include":["src"]}\n' >tsconfig.json
  for i in $(seq 1 "$1"); do
    printf 'export interface Item%s { id: number; name: string }\nexport function make%s(id: number): Item%s {\n  return { id, name: `item-${id}` };\n}\n' "$i" "$i" "$i" >"src/mod$i.ts"
  done
  if [ "$2" -gt 0 ]; then
    printf 'import { make%s } from "./mod%s.js";\nexport const total: number = make%s(1).name;\n' "$2" "$2" "$2" >"src/broken.ts"
  fi
}

case_tsc_type_error() { ts_project 400 211; "$BIN/tsc" -p . --listFiles --noEmit; }
case_tsc_emitted_files() { ts_project 300 150; "$BIN/tsc" -p . --listEmittedFiles; }
case_tsc_b_verbose() {
  for p in $(seq 1 30); do
    mkdir -p "p$p/src"
    refs=""
    [ "$p" -gt 1 ] && refs=",\"references\":[{\"path\":\"../p$((p - 1))\"}]"
    printf '{"compilerOptions":{"strict":true,"composite":true,"outDir":"dist","rootDir":"src","module":"NodeNext","target":"ES2022"},"include":["src"]%s}\n' "$refs" >"p$p/tsconfig.json"
    for i in $(seq 1 12); do printf 'export const value%s: number = %s;\n' "$i" "$i" >"p$p/src/f$i.ts"; done
  done
  printf 'export const wrong: string = 42;\n' >p14/src/wrong.ts
  printf '{"files":[],"references":[%s]}\n' "$(for p in $(seq 1 30); do printf '{"path":"p%s"},' "$p"; done | sed 's/,$//')" >tsconfig.json
  "$BIN/tsc" -b --verbose --listEmittedFiles
}
case_tsc_many_errors() {
  ts_project 60 0
  for i in $(seq 1 40); do printf 'export const n%s: number = "text %s";\nexport function f%s(a: string) { return a.missing%s; }\n' "$i" "$i" "$i" "$i" >"src/bad$i.ts"; done
  "$BIN/tsc" -p . --noEmit
}

vitest_project() { # $1 passing files, $2 tests each, then the failing file's body on stdin
  mkdir -p node_modules test
  ln -s "$REPO/node_modules/vitest" node_modules/vitest
  printf '{"type":"module"}\n' >package.json
  printf 'export default { test: { include: ["test/**/*.test.js"] } };\n' >vitest.config.js
  for f in $(seq 1 "$1"); do
    {
      printf 'import { describe, it, expect } from "vitest";\ndescribe("suite %s", () => {\n' "$f"
      for t in $(seq 1 "$2"); do printf '  it("computes case %s of suite %s", () => { expect(%s + %s).toBe(%s); });\n' "$t" "$f" "$t" "$f" "$((t + f))"; done
      printf '});\n'
    } >"test/s$f.test.js"
  done
  cat >test/zz-broken.test.js
  "$BIN/vitest" run --reporter=verbose --no-color --root . 
}
case_vitest_assertion_diff() {
  vitest_project 40 25 <<'EOF'
import { it, expect } from "vitest";
it("parses the config into the expected shape", () => {
  expect({ name: "spill", retries: 3, tags: ["a", "b"], nested: { depth: 2 } }).toEqual({ name: "spill", retries: 5, tags: ["a", "b"], nested: { depth: 2 } });
});
EOF
}
case_vitest_thrown_error() {
  vitest_project 40 25 <<'EOF'
import { it } from "vitest";
function load(map) { return map.get("key").value; }
it("loads the cached entry", () => { load(new Map()); });
EOF
}
case_vitest_snapshot_like() {
  vitest_project 30 30 <<'EOF'
import { it, expect } from "vitest";
it("renders the greeting", () => {
  expect("Hello, World! Welcome back.\nYou have 3 new messages.").toBe("Hello, world! Welcome back.\nYou have 4 new messages.");
});
EOF
}

node_test_project() {
  {
    printf 'import { test } from "node:test";\nimport assert from "node:assert/strict";\n'
    for t in $(seq 1 600); do printf 'test("adds %s and 1", () => { assert.equal(%s + 1, %s); });\n' "$t" "$t" "$((t + 1))"; done
    cat
    for t in $(seq 601 900); do printf 'test("adds %s and 1", () => { assert.equal(%s + 1, %s); });\n' "$t" "$t" "$((t + 1))"; done
  } >suite.test.mjs
  node --test "$@" suite.test.mjs
}
case_node_test_spec() {
  node_test_project --test-reporter=spec <<'EOF'
test("round-trips the user record", () => { assert.deepEqual({ id: 7, roles: ["admin", "dev"] }, { id: 7, roles: ["admin", "ops"] }); });
EOF
}
case_node_test_tap() {
  node_test_project --test-reporter=tap <<'EOF'
test("rejects an empty name", () => { assert.throws(() => { /* does not throw */ }, /empty/); });
EOF
}

c_project() { # $1 files; files listed in $2 get an error
  local rules="all:"
  for i in $(seq 1 "$1"); do
    printf '#include <stdio.h>\nint helper%s(int unused_arg) {\n  int unused_local = 0;\n  return %s;\n}\n' "$i" "$i" >"f$i.c"
    rules="$rules f$i.o"
  done
  for i in $2; do printf 'int broken%s(void) { return undefined_symbol_%s; }\n' "$i" "$i" >>"f$i.c"; done
  printf '%s\n%%.o: %%.c\n\tgcc -Wall -Wextra -c $< -o $@\n' "$rules" >Makefile
}
case_make_k_errors_among_warnings() { c_project 80 "23 57"; make -k; }
case_make_j1_stops() { c_project 60 "41"; make; }
case_gcc_error_many_warnings() {
  {
    printf '#include <stdio.h>\n'
    for i in $(seq 1 250); do printf 'int unused_fn_%s(int x) { int y; return x; }\n' "$i"; done
    printf 'int main(void) { struct point p; p.x = 1; return 0; }\n'
    for i in $(seq 251 400); do printf 'int unused_fn_%s(int x) { int y; return x; }\n' "$i"; done
  } >big.c
  gcc -Wall -Wextra -c big.c
}
case_gxx_template_error() {
  cat >t.cpp <<'EOF'
#include <map>
#include <string>
#include <vector>
#include <algorithm>
struct Key { int a; };
int main() {
  std::map<Key, std::vector<std::string>> index;
  index[Key{1}].push_back("x");
  std::vector<Key> keys{{3}, {1}, {2}};
  std::sort(keys.begin(), keys.end());
  return 0;
}
EOF
  g++ -std=c++17 -c t.cpp
}
case_gcc_linker_error() {
  for i in $(seq 1 40); do printf 'int part%s(void) { return %s; }\n' "$i" "$i" >"p$i.c"; done
  printf 'int part1(void);\nint missing_function(int);\nint main(void) { return part1() + missing_function(2); }\n' >main.c
  gcc -v -o app main.c p*.c
}
case_c_segfault() {
  printf '#include <stdio.h>\nint main(void) { for (int i = 0; i < 3000; i++) printf("processed record %%d of 5000\\n", i); fflush(stdout); int *p = 0; return *p; }\n' >crash.c
  gcc -o crash crash.c && bash -c ./crash
}

case_python_traceback_deep() {
  cat >app.py <<'EOF'
import logging, sys
logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("worker")
def parse(row): return int(row["amount"])
def handle(batch):
    return [parse(r) for r in batch]
def main():
    for i in range(4000):
        log.info("batch %d: 25 rows imported from shard %d", i, i % 7)
    handle([{"amount": "12"}, {"amount": "12.5"}])
    for i in range(4000, 6000):
        log.info("batch %d: 25 rows imported", i)
main()
EOF
  python3 app.py
}
case_python_chained_exception() {
  cat >app.py <<'EOF'
import json
def read_config(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RuntimeError("config file settings.json is not valid JSON") from e
for i in range(3000):
    print(f"loading plugin {i}: ok")
read_config('{"port": 8080,}')
EOF
  python3 app.py
}
case_pytest_failure() {
  {
    for m in $(seq 1 12); do
      printf 'import pytest\n\n@pytest.mark.parametrize("n", range(40))\ndef test_square_%s(n):\n    assert n * n >= 0\n' "$m" >"test_m$m.py"
    done
    printf 'def test_discount():\n    price = 100\n    assert price * 0.9 == 91\n' >test_z_discount.py
  }
  python3 -m pytest -v -p no:cacheprovider
}
case_pytest_collection_error() {
  for m in $(seq 1 30); do printf 'import pytest\n@pytest.mark.parametrize("n", range(12))\ndef test_ok_%s(n):\n    assert n >= 0\n' "$m" >"test_a$m.py"; done
  printf 'def test_zz_last():\n    assert True\n' >test_c_last.py
  printf 'import numpy_that_is_not_installed\n\ndef test_x():\n    pass\n' >test_b_broken.py
  python3 -m pytest -v -p no:cacheprovider --continue-on-collection-errors
}
case_python_unittest_failure() {
  {
    printf 'import unittest\nclass TestMath(unittest.TestCase):\n'
    for t in $(seq 1 500); do printf '    def test_add_%s(self):\n        self.assertEqual(%s + 1, %s)\n' "$t" "$t" "$((t + 1))"; done
    printf '    def test_zz_ratio(self):\n        self.assertEqual(round(2 / 3, 2), 0.66)\n'
    printf 'unittest.main(verbosity=2)\n'
  } >t.py
  python3 t.py
}

case_npm_offline_missing() { npm install --offline --loglevel silly --no-audit --no-fund left-pad-not-a-real-package-xyz@1.0.0; }
case_npm_script_failure() {
  printf '{"name":"app","version":"1.0.0","scripts":{"build":"node build.js"}}\n' >package.json
  printf 'for (let i = 0; i < 2500; i++) console.log(`bundling module ${i}.js`);\nconsole.error("Error: cannot resolve ./routes/admin from src/index.js");\nprocess.exit(2);\n' >build.js
  npm run build
}
case_cargo_build_error() {
  cargo new --vcs none --quiet demo && cd demo || return
  {
    for i in $(seq 1 60); do printf 'fn helper_%s() { let unused_%s = %s; }\n' "$i" "$i" "$i"; done
    printf 'fn main() {\n    let count: u32 = "three";\n    println!("{}", count);\n}\n'
  } >src/main.rs
  cargo build --offline --color never
}
case_cargo_test_failure() {
  cargo new --vcs none --quiet --lib calc && cd calc || return
  {
    printf 'pub fn mean(xs: &[f64]) -> f64 { xs.iter().sum::<f64>() / xs.len() as f64 }\n#[cfg(test)]\nmod tests {\n    use super::*;\n'
    for i in $(seq 1 300); do printf '    #[test]\n    fn mean_of_pair_%s() { assert_eq!(mean(&[%s.0, %s.0]), %s.0); }\n' "$i" "$i" "$i" "$i"; done
    printf '    #[test]\n    fn mean_of_empty_is_zero() { assert_eq!(mean(&[]), 0.0); }\n}\n'
  } >src/lib.rs
  cargo test --offline --color never -- --test-threads 1
}
case_javac_errors() {
  {
    printf 'public class Old {\n'
    for i in $(seq 1 150); do printf '  @Deprecated public static int old%s() { return %s; }\n' "$i" "$i"; done
    printf '}\n'
  } >Old.java
  {
    printf 'import java.util.*;\npublic class App {\n'
    for i in $(seq 1 150); do printf '  static int use%s() { return Old.old%s(); }\n' "$i" "$i"; done
    printf '  public static void main(String[] a) { List<String> xs = new ArrayList<>(); xs.add(1); System.out.println(xz); }\n}\n'
  } >App.java
  javac -Xlint:all -Xmaxwarns 10000 -Xmaxerrs 100 Old.java App.java
}
case_eslint_errors_among_warnings() {
  printf 'export default [{ files: ["**/*.js"], rules: { "no-unused-vars": "warn", "no-undef": "error", "prefer-const": "warn" } }];\n' >eslint.config.js
  for i in $(seq 1 120); do printf 'let a%s = 1;\nlet unused%s = 2;\nexport const b%s = a%s;\n' "$i" "$i" "$i" "$i" >"f$i.js"; done
  printf 'export function go() { return undefinedHelper(3); }\n' >f61.js
  "$BIN/eslint" --no-color --format stylish .
}

case_ndjson_pino_error() {
  node -e '
let t = 1764547200000;
for (let i = 0; i < 4000; i++) {
  const rec = { level: 30, time: t + i * 37, pid: 4242, hostname: "api-1", reqId: `req-${i}`, msg: "request completed", res: { statusCode: 200 }, responseTime: 3 + (i % 17) };
  if (i === 3172) Object.assign(rec, { level: 50, msg: "db query failed: deadlock detected", err: { type: "QueryError", code: "40P01" }, res: { statusCode: 500 } });
  console.log(JSON.stringify(rec));
}'
}
case_ndjson_level_strings() {
  python3 -c '
import json
for i in range(3500):
    rec = {"ts": f"2026-12-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z", "level": "info", "logger": "scheduler", "message": f"job {i} finished", "duration_ms": i % 90}
    if i == 2718:
        rec = {"ts": "2026-12-01T10:45:18Z", "level": "error", "logger": "scheduler", "message": "job 2718 crashed: out of memory in worker 3", "exit_code": 137}
    print(json.dumps(rec))
'
}
case_access_log_500() {
  python3 -c '
for i in range(4500):
    status, path = (500, "/api/checkout") if i == 4410 else (200, f"/api/items/{i % 300}")
    print(f"10.0.{i % 250}.{i % 200} - - [01/Dec/2026:10:{i // 60 % 60:02d}:{i % 60:02d} +0000] \"GET {path} HTTP/1.1\" {status} {512 + i % 97} \"-\" \"curl/8.5\"")
'
}
case_sqlite_script_error() {
  {
    printf 'CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT);\n'
    for i in $(seq 1 2000); do printf "INSERT INTO items(name) VALUES('item %s');\nSELECT 'inserted %s';\n" "$i" "$i"; done
    printf 'SELECT * FROM orders;\n'
    for i in $(seq 2001 2500); do printf "SELECT 'row %s';\n" "$i"; done
  } >script.sql
  sqlite3 -bail db.sqlite <script.sql
}
case_bash_xtrace_failure() {
  {
    printf 'set -x\n'
    for i in $(seq 1 1500); do printf 'echo "step %s done" > /dev/null\n' "$i"; done
    printf 'deploy_artifacts --target prod\n'
    for i in $(seq 1501 1800); do printf 'echo "step %s done" > /dev/null\n' "$i"; done
  } >deploy.sh
  bash deploy.sh
}
case_git_apply_failure() {
  git init -q repo && cd repo || return
  for i in $(seq 1 4000); do echo "line $i of the original file" >>big.txt; done
  git add big.txt && git -c user.email=a@b -c user.name=a commit -qm base
  sed -i 's/^line \([0-9]*0\) of/line \1 (edited) of/' big.txt
  git diff >../change.patch
  git checkout -q big.txt
  sed -i 's/^line 200 of the original file/line 200 was changed elsewhere/' big.txt
  git apply -v --reject ../change.patch
}
case_perl_die() {
  printf 'for my $i (1..3500) { print "record $i checked\\n"; }\nopen(my $fh, "<", "/nonexistent/config.ini") or die "Cannot open /nonexistent/config.ini: $!";\n' >s.pl
  perl s.pl
}
case_jq_error() {
  python3 -c '
import json
for i in range(3000):
    print(json.dumps({"id": i, "user": {"name": f"u{i}"}} if i != 1777 else {"id": i, "user": 42}))
' >in.ndjson
  jq -c '.user.name' in.ndjson
}
case_node_uncaught_typeerror() {
  printf 'for (let i = 0; i < 3000; i++) console.log(`rendered page ${i}`);\nfunction title(doc) { return doc.meta.title.trim(); }\nfunction render(docs) { return docs.map(title); }\nrender([{ meta: { title: " a " } }, { meta: {} }]);\n' >r.js
  node r.js
}
case_node_unhandled_rejection() {
  printf 'for (let i = 0; i < 2500; i++) console.log(`synced row ${i}`);\nasync function fetchUser(id) { throw new Error(`user ${id} not found (HTTP 404)`); }\nfetchUser(12);\nsetTimeout(() => { for (let i = 2500; i < 2600; i++) console.log(`synced row ${i}`); }, 10);\n' >u.mjs
  node u.mjs
}
case_make_missing_rule() {
  c_project 50 ""
  printf 'app: f1.o f2.o config.h\n\tgcc -o app f1.o f2.o\n' >>Makefile
  make -k all app
}
case_rustc_borrow_error() {
  {
    for i in $(seq 1 50); do printf '#[allow(dead_code)]\nfn unused_%s(x: i32) -> i32 { let y = x; x }\n' "$i"; done
    printf 'fn main() {\n    let mut v = vec![1, 2, 3];\n    let first = &v[0];\n    v.push(4);\n    println!("{}", first);\n}\n'
  } >m.rs
  rustc --color never m.rs
}
case_python_syntax_error_in_log() {
  for i in $(seq 1 3000); do echo "compiling module_$i.py"; done
  printf 'def broken(:\n    pass\n' >bad.py
  python3 -m py_compile bad.py
  for i in $(seq 3001 3200); do echo "compiling module_$i.py"; done
}
case_tsc_extended_diagnostics() { ts_project 200 120; "$BIN/tsc" -p . --noEmit --pretty false --listFiles --extendedDiagnostics; }

# JSON results.
case_npm_ls_json() { cd "$REPO" && npm ls --json --depth 2 2>/dev/null; }
case_pnpm_ls_json() { cd "$REPO" && pnpm ls -r --json --depth 1; }
case_tsc_show_config_json() { ts_project 400 0; "$BIN/tsc" -p . --showConfig; }
case_sqlite_json() {
  sqlite3 db.sqlite 'CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT, total REAL, status TEXT);'
  for i in $(seq 1 3000); do echo "INSERT INTO orders(customer,total,status) VALUES('customer $i', $i.5, '$([ $((i % 7)) = 0 ] && echo refunded || echo paid)');"; done | sqlite3 db.sqlite
  sqlite3 -json db.sqlite 'SELECT * FROM orders'
}
case_api_dump_json() {
  python3 -c '
import json
data = {"data": [{"id": i, "type": "invoice", "attributes": {"number": f"INV-{i:05d}", "amount": i * 3.25, "currency": "EUR"}} for i in range(1500)],
        "errors": [{"status": "422", "title": "Invalid currency", "detail": "invoice INV-00077 uses currency XXX"}],
        "included": [{"id": i, "type": "customer", "attributes": {"name": f"Customer {i}"}} for i in range(800)],
        "meta": {"page": 1, "pages": 12, "total": 18000}}
print(json.dumps(data, indent=2))
'
}
case_npm_view_json() { npm view typescript@5.9.3 --json; }

# Lookups: what matters depends on the question.
case_find_listing() { cd "$REPO" && find packages -path '*/node_modules' -prune -o -type f -print | sort; }
case_lockfile() { cat "$REPO/pnpm-lock.yaml"; }
case_dpkg_list() { COLUMNS=160 dpkg -l; }
case_git_log_stat() { cd "$REPO" && git log --stat -n 120 --format='%h %s' 2>/dev/null; }

ALL=$(declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//')
for name in ${@:-$ALL}; do
  echo "== $name" >&2
  run_case "${name//_/-}" "case_${name//-/_}"
done
