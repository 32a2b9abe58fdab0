#pragma once
// Drift: what changed in a node's state between its baseline snapshot and a
// new one, each difference filed by impact. The differences are those of
// `hnprecheck diff` (formats/snapshot_diff.h, volatile fields included); the
// classification is data: profiles/gate/drift.toml, compiled in, behind any
// [[drift]] rows of a rules file. The first matching row wins, and the
// table's last row matches everything, so no difference goes unfiled.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/snapshot_diff.h"
#include "gate/run.h"

// Only its parser takes a TOML table: the header stays free of toml11, which
// every file of the gate and its tests would otherwise compile.
namespace hn::compat {
class TomlTable;
}

namespace hn::gate {

enum class Impact { kSignificant, kReview, kNone };
std::string_view to_string(Impact i);

struct DriftRule {
  std::string entity;  // glob on the diff entity: "physical/links/*"
  std::string field;   // glob on the field; "present" for an item that came or went
  Impact impact = Impact::kReview;
  std::string why;
  std::string origin;  // "file:line"
};

// One row from a TOML table ([[rule]] of the table, [[drift]] of a rules
// file): keys entity, field, impact, why. Throws compat::InputError.
DriftRule parse_drift_row(compat::TomlTable& row, const std::string& file);

// A whole table: `version = 1` and [[rule]] rows. Throws compat::InputError.
std::vector<DriftRule> parse_drift_table(const std::string& text, const std::string& file);

// The compiled-in table (profiles/gate/drift.toml).
const std::vector<DriftRule>& builtin_drift_rules();

struct Drift {
  formats::DiffEntry diff;
  Impact impact = Impact::kReview;
  std::string why;
  std::string origin;
};

// The field a difference is matched on: its field, or "present" when the
// whole item is on one side only.
std::string drift_field(const formats::DiffEntry& d);

// Files each difference under the first rule that matches; one with no rule
// at all (a table without a catch-all) is kReview with the reason saying so.
std::vector<Drift> classify(const std::vector<formats::DiffEntry>& diffs,
                            std::span<const DriftRule> rules);

// Every difference between two validated snapshots, volatile fields included
// (the table decides what they are worth). Throws compat::InputError when a
// text is not YAML.
std::vector<formats::DiffEntry> diff_states(const NodeState& baseline, const NodeState& now);

}  // namespace hn::gate
