#!/usr/bin/env bash
# Installs the Debian packages hnprecheck needs, and nothing else.
#   scripts/install-deps.sh            build dependencies
#   scripts/install-deps.sh --test     + what the test suite uses (netns, FUSE, MPI, ...)
#   scripts/install-deps.sh --bench    + the peers the benchmarks compare against
#   scripts/install-deps.sh --package  + what `cpack -G DEB` needs (deploy/Dockerfile)
# Idempotent and silent when everything is present. As root it installs what
# is missing; otherwise it prints the one apt-get line to run and exits 1.
set -euo pipefail

build_pkgs=(
  g++ cmake ninja-build pkg-config
  libboost-program-options-dev libnl-3-dev libnl-route-3-dev libibverbs-dev librdmacm-dev
  libyaml-cpp-dev libtoml11-dev nlohmann-json3-dev libssl-dev catch2
  libonnx-dev libprotobuf-dev zlib1g-dev
)
# fuse3 + libfuse3-dev: the faultfs test file system (tests/support/faultfs)
# libxml2-utils: xmllint, which checks the JUnit output is well-formed XML
# openmpi-bin: mpirun launching hnprecheck (tests/preflight/mpi_test.cc)
# slurm-wlm + munge: a two-node Slurm cluster on this host (tests/support/slurm_cluster)
# chromium: renders every HTML report headless (tests/reports/html_browser_test.cc)
# python3: bench/compare_report.py, whose floors tests/bench/compare_report_test.cc checks
# python3-jsonschema: every certificate the tests produce is validated against
#   docs/certificate.schema.json (tests/support/json_schema.h)
# dpkg-dev: dpkg-shlibdeps for `cpack -G DEB` (tests/cmake/deb_package_test.cc)
# groff-base: checks the generated man page renders without warnings
# clang + libclang-rt-dev: the libFuzzer targets (scripts/fuzz.sh, ctest label fuzz)
test_pkgs=(iproute2 python3 python3-jsonschema libonnx-testdata fuse3 libfuse3-dev libxml2-utils openmpi-bin slurm-wlm munge
  chromium dpkg-dev groff-base clang libclang-rt-dev)
# fio: bench/storage_vs_fio; Open MPI, Gloo, iperf3: bench/compare.sh
# dpkg-dev: dpkg-shlibdeps, which computes the .deb's dependencies
package_pkgs=(dpkg-dev)
bench_pkgs=(fio openmpi-bin libopenmpi-dev libgloo-dev iperf3 python3)

want=("${build_pkgs[@]}")
for arg in "$@"; do
  case "$arg" in
    --test) want+=("${test_pkgs[@]}") ;;
    --bench) want+=("${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
    --package) want+=("${package_pkgs[@]}") ;;
    *) echo "install-deps.sh: unknown option '$arg' (expected --test, --bench or --package)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "Missing packages. Run as root:" >&2
  echo "  apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/hn-apt.log 2>&1; then
  apt-get update -qq >/tmp/hn-apt.log 2>&1
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/hn-apt.log 2>&1 ||
    { cat /tmp/hn-apt.log >&2; exit 1; }
fi
