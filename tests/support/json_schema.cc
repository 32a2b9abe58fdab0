#include "tests/support/json_schema.h"

#include <sstream>
#include <stdexcept>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace hn::test {

namespace {

// Prints each violation as "path: message" and exits 1, or exits 0; exit 3
// when the module is missing.
constexpr const char* kValidator = R"(
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(3)
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft202012Validator(schema)
jsonschema.Draft202012Validator.check_schema(schema)
bad = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
for e in bad:
    print("$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
          + ": " + e.message[:300])
sys.exit(1 if bad else 0)
)";

}  // namespace

std::vector<std::string> json_schema_errors(const std::string& schema_file,
                                            const nlohmann::json& doc) {
  TempDir dir;
  const std::string path = dir.write("doc.json", doc.dump());
  auto r = run_process({"/usr/bin/python3", "-c", kValidator, schema_file, path}, 60);
  if (r.exit_code == 3 || r.exit_code == 127)
    skip("python3-jsonschema is not installed (scripts/install-deps.sh --test)");
  if (r.exit_code != 0 && r.exit_code != 1)
    throw std::runtime_error("the schema validator failed (exit " + std::to_string(r.exit_code) +
                             "): " + r.err);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  if (r.exit_code == 1 && out.empty()) out.push_back("invalid (the validator printed nothing)");
  return out;
}

std::string certificate_schema() {
  return std::string(HN_SOURCE_DIR) + "/docs/certificate.schema.json";
}

}  // namespace hn::test
