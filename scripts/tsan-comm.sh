#!/usr/bin/env bash
# Builds the communication tests (L3 collectives, faults, link setup; L5
# launcher) with ThreadSanitizer into build-tsan/ and runs them through ctest.
# Any data race fails the run (halt_on_error). Takes a few minutes on 2 cores.
#   scripts/tsan-comm.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -G Ninja -DHN_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-tsan -j "$(nproc)" --target l3_collectives_test l3_fault_test l3_fault_injection_test l3_link_setup_test l5_sched_tests
export TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}"
ctest --test-dir build-tsan --output-on-failure -R '^(l3_collectives_test|l3_fault_test|l3_fault_injection_test|l3_link_setup_test|l5_sched_tests):' "$@"
