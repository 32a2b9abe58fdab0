// libFuzzer target for translate's TOML rule tables (--rules FILE), through
// the guarded entry point (compat/toml_input.h). Anything but InputError
// escaping, a crash, a hang or a blow-up is a bug.
//   build-fuzz/bin/fuzz_rule_tables -max_total_time=60 tests/fuzz/corpus/fuzz_rule_tables
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/input_error.h"
#include "compat/translate/rules_toml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hn::compat::translate::parse_rule_table(text, "fuzz.toml");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
