#!/usr/bin/env bash
# The main job: build dpx, run the quick experiment suite (every preset under experiments/ in its
# --quick form), and write figures, tables and the claims ledger under results/.
#   scripts/run.sh            quick suite (a few minutes on 2 cores); results/claims.md
#   scripts/run.sh --full     the full presets (long); also refreshes docs/results/full (the
#                             committed rates.json of every preset), docs/claims.md from them, and
#                             the full-run sections and figures of docs/experiments/ (refresh_pages.py)
# Results are cached per block: rerunning reuses finished work.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deps.sh
source scripts/deps.sh

quick=--quick
for arg in "$@"; do
  case "$arg" in
    --full) quick= ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "scripts/run.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

dpx_ensure_packages
dpx_use_ccache
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target dpx
status=0
build/release/bin/dpx run --all $quick --out results --check || status=$?
# The claims ledger joined with these results (docs/claims.md). The published page is
# regenerated only from full runs: quick grids are too small to stand for the claims.
build/release/bin/dpx claims --results results --markdown --out results/claims.md || status=$?
build/release/bin/dpx claims --results results --json --out results/claims.json || status=$?
if [[ -z "$quick" ]]; then
  # The full-run rates.json are committed (small) so that docs/claims.md is regenerable from a
  # checkout; the CTest test claims_page checks that it is.
  for f in results/*/rates.json; do
    exp=$(basename "$(dirname "$f")")
    mkdir -p "docs/results/full/$exp"
    cp "$f" "docs/results/full/$exp/rates.json.tmp" && mv "docs/results/full/$exp/rates.json.tmp" "docs/results/full/$exp/rates.json"
  done
  build/release/bin/dpx claims --results docs/results/full --label docs/results/full --markdown \
    --out docs/claims.md || status=$?
  # Each docs/experiments/<preset>.md's generated block (provenance, rate table, figures) and
  # docs/experiments/figures/<preset>_<figure>.png from these results (docs/outputs.md).
  /usr/bin/python3 scripts/refresh_pages.py --results results || status=$?
fi
echo
echo "dpx: results are under $(pwd)/results/<preset>/:"
echo "  report.md (start here), figures/*.pdf|png, rates.md|tex|csv, summary.csv, tidy.csv, manifest.json"
echo "claims ledger: $(pwd)/results/claims.md (and claims.json)"
exit $status
