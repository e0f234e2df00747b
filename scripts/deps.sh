# Sourced by scripts/run.sh and scripts/test.sh: make sure the Debian packages dpx builds with
# are installed. As root, missing packages are installed with apt-get; otherwise the exact
# apt-get line is printed and the script exits 1. Nothing is downloaded at build time.

DPX_PACKAGES=(
  cmake make g++ git pkgconf
  libgtest-dev libgmock-dev libbenchmark-dev
  libxtensor-dev libxtensor-blas-dev libopenblas-dev liblapack-dev
  libboost-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libfftw3-dev librandom123-dev
  python3 python3-matplotlib python3-numpy
)

# Optional: the MPI runner (configure preset mpi, `scripts/test.sh --mpi`). Default builds and
# CI never need these.
DPX_MPI_PACKAGES=(libopenmpi-dev openmpi-bin)

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

# Replications are the unit of parallelism; BLAS stays single-threaded inside them.
export OPENBLAS_NUM_THREADS=1
