#!/usr/bin/env bash
# clang-tidy over the project's own sources (libs/, apps/, experiments/) with the repo's
# .clang-tidy, using the compile database of a configured build (default build/release).
#   scripts/tidy.sh [BUILD_DIR] [PATH_FILTER]     e.g. scripts/tidy.sh build/release libs/accounting
# GCC-only options in the database (-fvect-cost-model=..., -Wno-restrict) are removed from a
# copy of it first, since clang rejects them. Exits 1 if clang-tidy reports any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
filter=${2:-}
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "scripts/tidy.sh: $build/compile_commands.json not found (configure first: cmake --preset release)" >&2
  exit 2
fi
command -v clang-tidy >/dev/null || {
  echo "scripts/tidy.sh: clang-tidy not found; install it with: apt-get install -y clang-tidy" >&2
  exit 1
}
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
/usr/bin/python3 - "$build/compile_commands.json" "$db/compile_commands.json" <<'EOF'
import json, re, sys
gcc_only = re.compile(r"\s-(fvect-cost-model=\S+|Wno-restrict|Wno-stringop-overflow|Wno-array-bounds|fno-trapping-math)(?=\s|$)")
entries = json.load(open(sys.argv[1]))
# GCC precompiled headers (test targets): clang cannot read the .gch, and every source
# includes what it uses anyway.
gcc_pch = re.compile(r"\s-include\s+\S*cmake_pch\.hxx(?=\s|$)|\s-Winvalid-pch(?=\s|$)")
out = []
for e in entries:
    if "command" in e:
        e["command"] = gcc_pch.sub("", gcc_only.sub("", e["command"]))
    # A unity source (the dpx tool, apps/dpx/CMakeLists.txt) stands for the files it includes:
    # give each of them the unity file's command so that clang-tidy checks them one by one.
    if "/Unity/unity_" in e["file"]:
        for inc in re.findall(r'^#include "([^"]+)"', open(e["file"]).read(), re.M):
            f = dict(e, file=inc)
            if "command" in f:
                f["command"] = f["command"].replace(e["file"], inc)
            out.append(f)
    else:
        out.append(e)
json.dump(out, open(sys.argv[2], "w"))
EOF
mapfile -t files < <(git ls-files 'libs/*.cpp' 'apps/*.cpp' 'experiments/*.cpp' | grep -E "^${filter}" || true)
status=0
log=$(mktemp)
for f in "${files[@]}"; do
  if ! grep -q "\"file\": \"$PWD/$f\"" "$db/compile_commands.json"; then continue; fi
  clang-tidy -p "$db" --quiet "$f" >"$log" 2>/dev/null || true
  if grep -q "warning:\|error:" "$log"; then
    cat "$log"
    status=1
  fi
done
rm -f "$log"
if [[ $status -eq 0 ]]; then echo "clang-tidy: ${#files[@]} files clean"; fi
exit $status
