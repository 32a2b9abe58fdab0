#pragma once
// A bug planted on purpose, for the fuzz label's own test
// (tests/fuzz/planted_crash_test.sh): an input starting with "HN18" reads one
// byte past a heap buffer. It is compiled like the parsers under test
// (coverage, ASan, UBSan) and reached through fuzz_planted_crash, run by the
// same scripts/fuzz.sh --ctest as the real targets; that run must fail, with
// the ASan report and the input saved. It is in no product code.

#include <cstddef>
#include <cstdint>

namespace hn::fuzz_check {

int planted_bug(const std::uint8_t* data, std::size_t size);

}  // namespace hn::fuzz_check
