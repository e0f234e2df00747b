#!/usr/bin/env bash
# Build dpx and run every test with CTest.
#   scripts/test.sh              release preset (unit, statistical, rate_smoke, integration)
#   scripts/test.sh --sanitize   the same suite under AddressSanitizer + UBSan (asan preset)
#   scripts/test.sh --mpi        installs OpenMPI, builds the mpi preset (build/mpi: dpx and the
#                                integration tests) and runs the mpirun tests (not part of CI)
#   scripts/test.sh --slurm      installs Slurm + munge, starts a one-node cluster on this machine
#                                and runs a dpx job array through it with one task killed and
#                                resubmitted (scripts/slurm_test.sh; root; ~15 s)
#   scripts/test.sh --peers      builds the Python module, installs the pinned peers
#                                (python/tests/peers/requirements.txt: dp-accounting,
#                                prv-accountant, opendp, autodp, diffprivlib) from PyPI into
#                                build/peers-venv and runs the peer-parity suite (python/tests/peers;
#                                tables in build/peers/parity.md)
#   scripts/test.sh --fuzz SECONDS  builds the libFuzzer targets (preset fuzz, clang) and runs
#                                each for SECONDS on its seed corpus (tests/fuzz/corpus/)
#   The default run ends with every fuzz target for DPX_CI_FUZZ_SECONDS (15; 0 skips them).
# Installs missing Debian packages first (as root) or prints the apt-get line and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deps.sh
source scripts/deps.sh

preset=release
fuzz_seconds=""
for arg in "$@"; do
  if [ "$fuzz_seconds" = next ]; then fuzz_seconds=$arg; continue; fi
  case "$arg" in
    --fuzz) fuzz_seconds=next ;;
    --sanitize) preset=asan ;;
    --mpi) preset=mpi ;;
    --slurm) preset=slurm ;;
    --peers) preset=peers ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "scripts/test.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

jobs=$(nproc)
dpx_ensure_packages
dpx_use_ccache

# ---- fuzzing (libFuzzer; preset fuzz; tests/fuzz/) -------------------------------------------
# Each target runs for $1 seconds on a copy of its seed corpus; a crash, a sanitizer report, an
# input slower than 25 s or above 2 GB of memory fails (libFuzzer exits non-zero, set -e stops).
run_fuzzers() {
  local seconds=$1 start t work
  start=$(date +%s)
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs" --target fuzz_csv fuzz_preset fuzz_cli fuzz_events
  echo "dpx: build (fuzz) took $(($(date +%s) - start)) s" >&2
  mkdir -p build/fuzz/artifacts
  for t in csv preset cli events; do
    work=$(mktemp -d)
    cp -r "tests/fuzz/corpus/$t/." "$work/"
    echo "dpx: fuzz_$t for $seconds s" >&2
    build/fuzz/bin/fuzz_$t -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
      -max_len=4096 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" "$work" \
      2> "build/fuzz/fuzz_$t.log" || { tail -40 "build/fuzz/fuzz_$t.log" >&2; exit 1; }
    rm -rf "$work"
  done
}
if [ -n "$fuzz_seconds" ]; then
  case "$fuzz_seconds" in
    ''|next|*[!0-9]*) echo "scripts/test.sh: --fuzz needs SECONDS (a positive integer)" >&2; exit 2 ;;
  esac
  dpx_ensure_packages "${DPX_FUZZ_PACKAGES[@]}"
  run_fuzzers "$fuzz_seconds"
  exit 0
fi
if [ "$preset" = mpi ]; then
  dpx_ensure_packages "${DPX_MPI_PACKAGES[@]}"
  start=$(date +%s)
  cmake --preset mpi >/dev/null
  cmake --build --preset mpi -j "$jobs" --target dpx integration_tests
  echo "dpx: build (mpi) took $(($(date +%s) - start)) s" >&2
  ctest --preset mpi
  exit 0
fi
if [ "$preset" = slurm ]; then
  dpx_ensure_packages "${DPX_SLURM_PACKAGES[@]}"
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$jobs" --target dpx
  scripts/slurm_test.sh build/release/bin/dpx
  exit 0
fi
if [ "$preset" = peers ]; then
  # The venv sees Debian's numpy/scipy/pytest and the module built for /usr/bin/python3
  # (--system-site-packages); pip runs only when the venv is new or the pins changed.
  dpx_ensure_packages "${DPX_PEERS_PACKAGES[@]}"
  start=$(date +%s)
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$jobs" --target dpx_python
  echo "dpx: build (dpx_python) took $(($(date +%s) - start)) s" >&2
  venv=build/peers-venv
  req=python/tests/peers/requirements.txt
  want=$(sha256sum "$req" | cut -d' ' -f1)
  start=$(date +%s)
  if [ ! -x "$venv/bin/python" ]; then
    /usr/bin/python3 -m venv --system-site-packages "$venv"
  fi
  if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
    "$venv/bin/python" -m pip install --require-virtualenv --disable-pip-version-check \
      --no-input -q -r "$req"
    echo "$want" > "$venv/.requirements.sha256"
  fi
  echo "dpx: peers venv ($venv) ready in $(($(date +%s) - start)) s" >&2
  PYTHONPATH="$PWD/build/release/python" DPX_SOURCE_DIR="$PWD" MPLBACKEND=Agg \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -rf python/tests/peers
  exit 0
fi
dpx_ensure_packages "${DPX_TEST_PACKAGES[@]}"
start=$(date +%s)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
built=$(date +%s)
echo "dpx: build ($preset) took $((built - start)) s" >&2

# Python package (python/): the release preset builds dpx._dpx with pybind11 and registers the
# pytest suites (label python) in CTest. If pybind11 or the Python headers were missing, CMake
# only warns; fail here instead of passing without them.
if [ "$preset" = release ]; then
  py_tests=$(ctest --preset release -N -L python | sed -n 's/^Total Tests: //p')
  if [ "${py_tests:-0}" -eq 0 ]; then
    echo "dpx: the Python tests are not registered (pybind11-dev, python3-dev missing?)" >&2
    exit 1
  fi
fi

ctest --preset "$preset" -j "$jobs"
ci_fuzz=${DPX_CI_FUZZ_SECONDS:-15}
if [ "$preset" = release ] && [ "$ci_fuzz" -gt 0 ]; then
  dpx_ensure_packages "${DPX_FUZZ_PACKAGES[@]}"
  run_fuzzers "$ci_fuzz"
fi
