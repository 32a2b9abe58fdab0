// libFuzzer target for the environment inputs of `node --env` and
// `translate`: env files, shell/Slurm scripts and Kubernetes manifests.
// Anything but InputError escaping, or a crash, is a bug.
//   build-fuzz/bin/hn_fuzz_env_inputs -max_total_time=60 tests/fixtures/translate
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/env_file.h"
#include "compat/input_error.h"
#include "compat/translate/k8s_input.h"
#include "compat/translate/shell_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace tr = hn::compat::translate;
  try {
    hn::compat::parse_env_text(text, "fuzz.env");
  } catch (const hn::compat::InputError&) {
  }
  for (auto mode : {tr::ShellMode::kScript, tr::ShellMode::kEnvFile}) {
    try {
      tr::parse_shell_text(text, "fuzz.sh", mode);
    } catch (const hn::compat::InputError&) {
    }
  }
  try {
    tr::parse_k8s_manifest_text(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
