#pragma once
// One environment variable as an input declared it: the name, the value after
// quote removal, and where it was written, so every finding and every error
// can point at file:line. Plain data shared by the input readers and the
// translator.

#include <string>

namespace hn::compat::translate {

struct EnvEntry {
  std::string name;
  std::string value;    // after quote removal and expansion of variables set earlier
  std::string raw;      // the value as written (quotes and $-expansions intact)
  std::string file;     // path as given, "environment" for --from-env
  int line = 0;         // 1-based; 0 when the source has no lines (the environment)
  std::string context;  // e.g. "container trainer" in a manifest; empty otherwise
  // The value is only known at run time: it uses $(...), `...`, a variable the
  // input does not set, or a Kubernetes valueFrom. `value` is then the raw text.
  bool dynamic = false;

  std::string where() const {
    std::string w = line > 0 ? file + ":" + std::to_string(line) : file;
    return context.empty() ? w : w + " (" + context + ")";
  }
};

}  // namespace hn::compat::translate
