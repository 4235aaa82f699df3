#!/usr/bin/env bash
# Makes the second round of the search corpus: real outputs of real tools, the lookups an
# agent runs in the middle of a task (a find, package lists, lockfile views, git history,
# --help texts, a registry's JSON), each written to outputs/<name> as the agent's shell tool
# sees it (stdout and stderr together). The first seventeen outputs in outputs/ were made
# by hand earlier and are not remade here: their queries depend on them byte for byte.
#
# The committed outputs were made on the project's Debian 12 development machine (Node 20,
# pnpm 10, Python 3.11 under pyenv, gcc 12), in this repository at the commits named
# below. A fresh machine will not reproduce them exactly (other packages, versions, dates,
# processes, registry state); that is expected, and the labelled queries hold for the
# committed files, not for a rerun. Nothing here prints the environment, keys or tokens.
# Needs pnpm's install of this repository (tsc, eslint, vitest), git, dpkg, apt-cache, nm,
# gcc, python3, sqlite3, openssl, curl and tar. Only the npm-view-* cases ask the npm
# registry; every other case runs offline.
#   usage: bash generate.sh [name...]
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
BIN="$REPO/node_modules/.bin"
OUT="$HERE/outputs"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/spillway-search-corpus-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# The repository's history is read at fixed commits, so that a rerun shows the same commits.
HEAD_COMMIT=386f331 # the newest commit the git cases read
OLD_LOG_TIP=ea7ca9e # the tip of the first round's git-log-p.txt: the new log starts after it
EARLY_TIP=67ddcf5 # the oldest commit of the first round's git-log-stat.txt: the early log is before it
PROXY_MERGE=97ad1ed # the merge that split the MCP proxy by concern

# Runs a case in the repository's root; the output file holds everything it printed.
run_case() {
  local name="$1"
  shift
  (cd "$REPO" && "$@") >"$OUT/$name" 2>&1 || true
  # Temporary paths differ on every run; make them stable.
  sed -i "s#$WORK#/tmp/scratch#g" "$OUT/$name"
}

# File system and Debian packages.
case_find_usr_lib() { find /usr/lib -maxdepth 5; }
case_find_usr_share() { find /usr/share -maxdepth 3; }
case_find_usr_include() { find /usr/include; }
case_find_pnpm_store() { find node_modules/.pnpm -maxdepth 4; }
case_ls_la_lib() { ls -la /usr/lib/x86_64-linux-gnu; }
case_dpkg_L_dev() { dpkg -L libssl-dev libsqlite3-dev python3.11-minimal make binutils libpython3.11-stdlib; }
case_apt_cache_show_dev() { apt-cache show gcc-12 g++-12 make libssl-dev libsqlite3-dev zlib1g-dev binutils jq sqlite3 openssl; }
case_apt_cache_depends() { apt-cache depends build-essential git curl python3 openssh-client libcurl4 gcc-12 g++-12 perl libssl-dev nodejs sqlite3 jq make; apt-cache rdepends libsqlite3-0 zlib1g; }
case_dpkg_s_lib() { dpkg -s $(dpkg-query -W -f='${Package}\n' 'lib*'); }
case_nm_libsqlite() { nm -D --defined-only /usr/lib/x86_64-linux-gnu/libsqlite3.so.0; }
case_nm_libcrypto() { nm -D --defined-only /usr/lib/x86_64-linux-gnu/libcrypto.so.3; }

# This repository's history and dependencies.
# The corpora's own files are left out of the diffs: they would only repeat other outputs.
case_git_log_p_recent() { git log -p "$OLD_LOG_TIP..$HEAD_COMMIT" -- . ':!packages/spill-search/corpus' ':!packages/spill-bench/corpus'; }
case_git_log_fuller_early() { git log --stat --format=fuller -n 100 "$EARLY_TIP^"; }
case_git_show_proxy_merge() { git show --diff-merges=first-parent --stat --patch "$PROXY_MERGE"; }
case_git_blame_tools() { git blame "$HEAD_COMMIT" -- packages/spill-policy/src/tools.ts && git blame "$HEAD_COMMIT" -- packages/spill-policy/src/stream.ts; }
case_git_log_dates() { git log --format='%h %ad %an %s' --date=iso "$HEAD_COMMIT"; }
case_git_ls_tree() { git ls-tree -r -l "$HEAD_COMMIT"; }
case_pnpm_list() { pnpm list -r --depth 2; }
case_pnpm_why() { pnpm why -r typescript && pnpm why -r zod; }
case_npm_view_libsql() { npm view libsql --json; }
case_npm_view_vitest() { npm view vitest@4.1.12 --json; }
case_npm_view_ai() { npm view ai --json; }
case_npm_view_typescript() { npm view typescript --json; }

# Compilers, linters and tests of this repository (the type error is made in a scratch copy).
case_tsc_showconfig() { "$BIN/tsc" --showConfig -p packages/spill-search/tsconfig.json; }
case_eslint_print_config() { "$BIN/eslint" --print-config packages/spill-search/src/query.ts; }
# These two need the workspace built first (pnpm build --filter=@spillway/memory...).
case_tsc_listfiles() { "$BIN/tsc" --listFiles --noEmit -p packages/spill-policy/tsconfig.json; }
case_vitest_memory() { "$BIN/vitest" run packages/spill-memory --reporter verbose --no-color; }
case_tsc_errors() {
  local copy="$WORK/tsc-errors"
  mkdir -p "$copy/packages"
  cp "$REPO/tsconfig.base.json" "$copy/"
  cp -r "$REPO/packages/spill-core" "$copy/packages/"
  rm -rf "$copy/packages/spill-core/dist"
  ln -s "$REPO/node_modules" "$copy/node_modules"
  # The bugs: a parsed notice's `locator` renamed to `location` (every use of it breaks),
  # and a saved reference's byte count that becomes a string.
  sed -i '0,/readonly locator: string;/s//readonly location: string;/' "$copy/packages/spill-core/src/notice.ts"
  sed -i '0,/readonly bytes: number;/s//readonly bytes: string;/' "$copy/packages/spill-core/src/backend.ts"
  (cd "$copy/packages/spill-core" && "$BIN/tsc" -p tsconfig.json --noEmit --pretty false)
}

# Help texts and the machine.
case_curl_help_all() { curl --help all; }
case_tar_help() { tar --help; }
case_openssl_list() { openssl list -help; openssl list -commands; openssl list -digest-algorithms; openssl list -cipher-algorithms; openssl list -public-key-algorithms; }
case_gcc_v_help() { gcc -v --help; }
case_python3_help_all() { python3 --help-all; }
case_sqlite3_help() { sqlite3 -help; echo .help | sqlite3; }
case_gcc_predefined_macros() { gcc -dM -E - </dev/null | sort; }
case_ps() { ps -eo pid,ppid,user,stat,rss,vsz,lstart,comm; }
case_lscpu_cpuinfo() { lscpu; cat /proc/cpuinfo; cat /proc/meminfo; }
case_pydoc_sqlite3() { python3 -m pydoc sqlite3; }

# The output name of a case: case_dpkg_L_dev -> dpkg-L-dev.txt, JSON for the registry.
out_name() {
  local n="${1//_/-}"
  case "$n" in npm-view-*) echo "$n.json" ;; *) echo "$n.txt" ;; esac
}

cases="$(declare -F | awk '{print $3}' | sed -n 's/^case_//p')"
if [ "$#" -gt 0 ]; then cases="$*"; fi
for c in $cases; do
  c="${c//-/_}"
  run_case "$(out_name "$c")" "case_$c"
  printf '%-32s %9s bytes\n' "$(out_name "$c")" "$(wc -c <"$OUT/$(out_name "$c")")"
done
