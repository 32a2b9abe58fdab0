#!/usr/bin/env bash
# The fuzz label cannot pass over a bug: fuzz_planted_crash (planted_bug.h)
# hides a heap overflow behind a 4-byte comparison; a seed holds two of the
# bytes. Run like every fuzz target (scripts/fuzz.sh --ctest), it must fail
# (exit 1, not 0 and not a build failure), with ASan's report and the input,
# starting "HN18", saved under build-fuzz/artifacts/. That also shows the
# library code is instrumented: without coverage feedback the fuzzer would
# not get past the comparison within the run. Exit 77 (skipped, with the
# reason) where clang or its libFuzzer runtime is missing.
set -uo pipefail
cd "$(dirname "$0")/../.."
bdir="${HN_FUZZ_BUILD_DIR:-build-fuzz}"
rm -f "$bdir"/artifacts/fuzz_planted_crash-*
out=$(scripts/fuzz.sh --ctest 60 fuzz_planted_crash 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 77 ] && exit 77
fail() {
  echo "planted_crash_test: $*" >&2
  exit 1
}
[ $rc -eq 1 ] || fail "scripts/fuzz.sh exited $rc; expected 1 (the run found the planted bug)"
grep -q 'AddressSanitizer: heap-buffer-overflow' <<<"$out" ||
  fail "no heap-buffer-overflow report in the output"
artifact=$(ls "$bdir"/artifacts/fuzz_planted_crash-crash-* 2>/dev/null | head -n 1)
[ -n "$artifact" ] || fail "no crash input saved under $bdir/artifacts/"
[ "$(head -c 4 "$artifact")" = HN18 ] || fail "$artifact does not start with HN18"
echo "planted bug found and reported: $artifact"
