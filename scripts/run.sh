#!/usr/bin/env bash
# The main job: build dpx, run the quick experiment suite (every preset under experiments/ in its
# --quick form), and write figures and tables under results/.
#   scripts/run.sh            quick suite (a few minutes on 2 cores)
#   scripts/run.sh --full     the full presets (long)
# Results are cached per block: rerunning reuses finished work.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deps.sh
source scripts/deps.sh

quick=--quick
for arg in "$@"; do
  case "$arg" in
    --full) quick= ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "scripts/run.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

dpx_ensure_packages
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target dpx
status=0
build/release/bin/dpx run --all $quick --out results --check || status=$?
echo
echo "dpx: results are under $(pwd)/results/<preset>/:"
echo "  report.md (start here), figures/*.pdf|png, rates.md|tex|csv, summary.csv, tidy.csv, manifest.json"
exit $status
