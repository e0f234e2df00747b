# Sourced by scripts/run.sh and scripts/test.sh: make sure the Debian packages dpx builds with
# are installed. As root, missing packages are installed with apt-get; otherwise the exact
# apt-get line is printed and the script exits 1. Nothing is downloaded at build time.

DPX_PACKAGES=(
  cmake make g++ git pkgconf ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  libxtensor-dev libxtensor-blas-dev libopenblas-dev liblapack-dev
  libboost-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libfftw3-dev librandom123-dev
  # rng::os_random, the CSPRNG of real releases: OpenSSL's libcrypto (RAND_priv_bytes).
  libssl-dev
  python3 python3-matplotlib python3-numpy
  # The Python package (python/): pybind11 module, pytest suites, offline pip install.
  pybind11-dev python3-dev python3-pytest python3-pandas python3-setuptools python3-wheel
  python3-venv python3-pip
)

# What scripts/test.sh needs on top: the API reference test (docs_api: doxygen) and the browser
# test of the HTML reports (html_report_browser: headless chromium driven over the DevTools
# protocol with python3-websocket).
DPX_TEST_PACKAGES=(doxygen chromium python3-websocket clang-format)

# The peer-parity suite (`scripts/test.sh --peers`): Debian's scipy and mpmath, seen by the
# peers' venv (build/peers-venv) through --system-site-packages; the peers come from PyPI.
DPX_PEERS_PACKAGES=(python3-scipy python3-mpmath)

# Optional: the MPI runner (configure preset mpi, `scripts/test.sh --mpi`). Default builds and
# CI never need these.
DPX_MPI_PACKAGES=(libopenmpi-dev openmpi-bin)

# Optional: a real single-node Slurm cluster for `scripts/test.sh --slurm`.
DPX_SLURM_PACKAGES=(slurmctld slurmd slurm-client munge)

# The libFuzzer targets (configure preset fuzz; `scripts/test.sh --fuzz SECONDS` and the short
# fuzz runs at the end of CI): Debian's clang with its sanitizer/fuzzer runtime.
DPX_FUZZ_PACKAGES=(clang libclang-rt-14-dev)

dpx_missing_packages() {
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  echo "${missing[@]}"
}

dpx_ensure_packages() {
  local missing
  missing=$(dpx_missing_packages "${DPX_PACKAGES[@]}" "$@")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "dpx: installing missing Debian packages: $missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2
  else
    echo "dpx: missing Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y $missing" >&2
    exit 1
  fi
}

# Compiler cache: a rebuild of an unchanged file (a second checkout, a restored mutant, a clean CI
# tree on a machine that built before) is a cache hit. CCACHE_BASEDIR makes the cached command
# lines relative to the checkout, so two checkouts share entries. Only a build tree configured
# after this takes it (CMake reads the variable at the first configure). DPX_CCACHE=0 turns it off.
dpx_use_ccache() {
  if [ "${DPX_CCACHE:-1}" = 1 ] && command -v ccache >/dev/null 2>&1 \
    && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  fi
}

# Replications are the unit of parallelism; BLAS stays single-threaded inside them.
export OPENBLAS_NUM_THREADS=1
