#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/, ASan + UBSan, only the
# parsers and what they call: tests/fuzz/CMakeLists.txt) and runs each over
# its seed corpus (tests/fuzz/corpus/<target>, plus the fixtures that fit it),
# copied to a scratch directory so the repository stays clean.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   every target by default, 60 s each
#   scripts/fuzz.sh --build                 build every target, run nothing
#                                           (ctest's fuzz:build)
#   scripts/fuzz.sh --ctest SECONDS TARGET  one short run for ctest (label fuzz)
# With --build and --ctest, a machine without clang or its libFuzzer runtime
# is exit 77 with the reason ("SKIPPED: ...", which scripts/test-summary
# prints); without them it is exit 1.
# A crash, a leak, an input slower than 10 s or one using more than 2 GB is a
# failure; the fuzzer writes the input to build-fuzz/artifacts/ and this
# script exits 1. A build that fails is exit 2. Needs: scripts/install-deps.sh
# --test (clang, libclang-rt-dev). HN_FUZZ_BUILD_DIR names another build
# directory (default: build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

bdir="${HN_FUZZ_BUILD_DIR:-build-fuzz}"
# Every target tests/fuzz/CMakeLists.txt defines (one list: tests/CMakeLists.txt
# reads the same lines), fuzz_planted_crash aside.
mapfile -t all_targets < <(sed -n 's/^hn_fuzz_target(\(fuzz_[a-z0-9_]*\) .*/\1/p' \
  tests/fuzz/CMakeLists.txt | grep -v '^fuzz_planted_crash$')
ctest=0
build_only=0
case "${1:-}" in
  --ctest) ctest=1; shift ;;
  --build) build_only=1; shift ;;
esac
seconds="${1:-60}"
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
# fuzz_planted_crash: the label's own check (tests/fuzz/planted_crash_test.sh).
[ $build_only -eq 1 ] && targets=("${all_targets[@]}" fuzz_planted_crash)

skip() {
  echo "SKIPPED: $*"
  [ $ctest -eq 1 ] || [ $build_only -eq 1 ] && exit 77
  exit 1
}
command -v clang++ >/dev/null || skip "clang++ is not installed (scripts/install-deps.sh --test)"
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' \
  >"$probe/p.cc"
clang++ -fsanitize=fuzzer "$probe/p.cc" -o "$probe/p" 2>/dev/null ||
  skip "clang++ has no libFuzzer runtime (install libclang-rt-dev: scripts/install-deps.sh --test)"

# One build at a time: ctest may start several fuzz tests at once (fuzz:build
# runs first, so the others find the targets built).
mkdir -p "$bdir"
(
  flock 9
  if [ ! -f "$bdir"/CMakeCache.txt ]; then
    # -O1 and line tables: libFuzzer's usual flags, readable crash stacks,
    # and a build that fits beside the other tests in CI.
    CXX=clang++ cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only" \
      -DHN_FUZZ=ON -DHN_BUILD_TESTS=OFF >/dev/null
  fi
  cmake --build "$bdir" -j 2 --target "${targets[@]}" >"$bdir"/last-build.log 2>&1 ||
    { tail -40 "$bdir"/last-build.log >&2; exit 2; }
) 9>"$bdir"/.lock
for t in "${targets[@]}"; do
  [ -x "$bdir/bin/$t" ] || { echo "fuzz.sh: $bdir/bin/$t was not built" >&2; exit 2; }
done
if [ $build_only -eq 1 ]; then
  echo "$bdir/: ${targets[*]} built"
  exit 0
fi

extra_seeds() {  # read-only corpora besides the target's own
  case "$1" in
    fuzz_profile_snapshot) echo tests/fixtures/profiles tests/fixtures/snapshots ;;
    fuzz_op_parsers | fuzz_trace) echo tests/fixtures/ops ;;
    fuzz_op_matrix) echo profiles/ops ;;
    fuzz_rule_tables) echo profiles/translate ;;
    fuzz_env_inputs) echo tests/fixtures/translate ;;
  esac
}

mkdir -p "$bdir"/artifacts
status=0
printf '%-24s %8s %10s %s\n' target seconds runs result
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  log="$bdir/$t.log"
  rc=0
  # shellcheck disable=SC2046
  "$bdir/bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$bdir/artifacts/$t-" \
    "$work" $(extra_seeds "$t") >"$log" 2>&1 || rc=$?
  rm -rf "$work"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  if [ $rc -eq 0 ]; then
    printf '%-24s %8s %10s %s\n' "$t" "$seconds" "$runs" clean
  else
    printf '%-24s %8s %10s %s\n' "$t" "$seconds" "$runs" "FAILED (exit $rc, see $log)"
    grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==| in hn::' "$log" | head -20 >&2 || true
    status=1
  fi
done
exit $status
