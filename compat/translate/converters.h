#pragma once
// One function per `convert` kind of a map row: it turns the present source
// variables of one row into target values and an outcome. Internal to the
// translator (translator.cc); split out to keep each file to one job.
//
// Throws compat::InputError when a source value does not parse as its type.

#include <string>
#include <vector>

#include "compat/translate/translator.h"
#include "compat/translate/value_check.h"

namespace hn::compat::translate {

struct RowInput {
  const MapRow& row;
  std::vector<const EnvEntry*> present;  // the row's source variables that the input sets
  const RuleSet& rules;
  const Context& ctx;
};

struct RowResult {
  Outcome outcome = Outcome::kTranslated;
  std::vector<std::pair<std::string, std::string>> outputs;
  std::string detail;
  std::string todo;
  bool risk = false;
  std::string range;
};

RowResult convert_row(const RowInput& in);

// Validates a target variable's own value (--check, or a target variable in
// the input): translated when valid. When it had to change, `check` decides:
// with --check a value that breaks the library's range or multiple_of is
// invalid as written; in a translation it is clamped/converted as before. A
// value outside the plausible bounds needs review either way.
RowResult check_target_value(const VarSpec& spec, const EnvEntry& e, const Context& ctx,
                             bool check);

// Renders {name} placeholders of a rule text; unknown names stay as written.
std::string render_rule_text(const std::string& tmpl,
                             const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace hn::compat::translate

// Helpers shared by converters.cc and converters_special.cc.
namespace hn::compat::translate::detail {

// Parses e.value by spec (nullptr: any string); throws InputError(file, line, name).
ParsedValue parse_entry(const VarSpec* spec, const EnvEntry& e, const std::string& platform);
// "{value} is outside NCCL's documented range [0, 31] (NCCL treats ... )".
std::string source_range_note(const VarSpec& spec, const std::string& value,
                              const std::string& platform);
RowResult needs_review(std::string detail, std::string todo);
// The values a variable accepts: "[0, 255], multiples of 4", or a kv's key ranges.
std::string accepted_values(const VarSpec& spec, const std::string& platform);
// What to do about a value outside the plausible bounds: check its unit.
std::string plausible_todo(const VarSpec& spec);
// The value of a row's source variable: from the input, else its default.
struct SourceValue {
  const EnvEntry* entry = nullptr;  // nullptr: the default applies
  long long number = 0;
};
SourceValue source_int(const RowInput& in, const std::string& name);

RowResult convert_ifname(const RowInput& in);
RowResult convert_socket_retry(const RowInput& in);
RowResult convert_connect_timeout_retry(const RowInput& in);
RowResult convert_port_min_range(const RowInput& in);
RowResult convert_pfc(const RowInput& in);
RowResult convert_nccl_algo(const RowInput& in);
RowResult convert_hccl_algo(const RowInput& in);
RowResult convert_debug_subsys(const RowInput& in);
RowResult convert_ccl_mnic(const RowInput& in);

}  // namespace hn::compat::translate::detail
