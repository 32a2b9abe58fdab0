#pragma once
// Translates a set of environment variables from one communication library's
// conventions to another's by the rule tables (rules.h), or checks a target
// configuration against its own table (--check). Pure: no I/O, no clock; the
// caller supplies the cluster facts (Context) it read from the profile and
// the kernel.
//
// Every input variable gets exactly one VarResult:
//   translated   same meaning, value carried over (maybe under a new name)
//   converted    unit or encoding changed (bytes -> MB, exclude list -> exact NIC)
//   clamped      out of the target's range; the nearest valid value is written
//   invalid      --check only: the value breaks the library's own rules (range,
//                multiple); the nearest valid value is written and `todo` names it
//   needs-review no safe automatic mapping, a source value outside its own
//                library's range, or a value outside the plausible bounds
//                (bytes copied as MB); `todo` says what to do
//   dropped      no counterpart; `detail` says why (risk: it must be redone by hand)
//   unknown      a communication variable that no table knows (with the known
//                name it is closest to, when one is within two edits)
//   conditional  the input sets it only on some paths, or to different values
//                on different paths (if/case branches, fallbacks, different
//                commands): `alternatives_text` lists each value, its line and
//                what it would become; nothing is written for it
// A value that does not parse as its variable's type is needs-review on that
// variable (the library ignores or rejects it); an empty value is dropped
// with a warning (the libraries read an empty value as unset). The rest of
// the input is still translated.
// Variables outside every library's namespace (PATH, SLURM_*) are listed in
// `others` and otherwise left alone. Only translated, converted and clamped
// values reach `env` (and, with --check, the fixed form of invalid ones), so
// the written file holds only valid values.
//
// Throws compat::InputError only for a broken rule table.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compat/translate/env_entry.h"
#include "compat/translate/rules.h"
#include "compat/translate/values.h"

namespace hn::compat::translate {

enum class Outcome {
  kTranslated,
  kConverted,
  kClamped,
  kInvalid,
  kNeedsReview,
  kDropped,
  kUnknown,
  kConditional
};
std::string to_string(Outcome o);

// The parameter plane of the cluster profile, resolved for interface settings.
struct ParamPlane {
  std::string plane;       // its name in the profile
  std::string nic_exact;   // one NIC name that holds on every node (or on --node)
  std::string nic_prefix;  // "ens1f" when the plane's NIC is the glob "ens1f*"
  std::string node_ip;     // this node's address on the plane (with --node)
  std::string unresolved;  // why neither an exact NIC nor an address is known
  std::function<bool(const std::string& ip)> contains_ip;  // the plane's subnets
};

struct Context {
  std::string platform = "a2";
  std::optional<ParamPlane> param;     // nullopt: no cluster profile was given
  std::string profile_name;            // for messages; empty without a profile
  std::optional<int> pfc_priority;     // profile comm.pfc_priority
  std::optional<PortRange> ephemeral;  // ip_local_port_range
  std::vector<PortRange> reserved;     // ip_local_reserved_ports
  std::string ports_source;            // where the two came from, or why they are unknown
  std::optional<double> pg_timeout_s;  // --pg-timeout, or a framework flag in the input
  std::string pg_timeout_source;  // "--pg-timeout", "--distributed-timeout-minutes 120 (job.sh:40)"
};

struct VarResult {
  EnvEntry input;
  Outcome outcome = Outcome::kUnknown;
  std::vector<std::pair<std::string, std::string>> outputs;  // what was written
  std::string rule;                                          // the row id, "check", or empty
  std::string table;                                         // the table that holds the rule
  std::string target;                                        // the variable(s) the rule names
  std::string range;                 // the target's range on this platform, when numeric
  std::string detail;                // how it was converted, or why not
  std::string todo;                  // the next step (needs-review, risky drops, clamps)
  bool risk = false;                 // dropped although it did something
  std::string source;                // fact keys (comm-params.md)
  std::vector<std::string> also_at;  // the same value set again at these places
  std::string alternatives_text;     // conditional: "eth0 (a.sh:5, if at line 4) -> ..., ..."
};

struct CrossResult {
  std::string id, kind, severity, source;
  enum State { kOk, kFixed, kViolated, kNotChecked };
  State state = kOk;
  std::string values;  // what was compared: "HCCL_EVENT_TIMEOUT=1000 (set), ..."
  std::string detail;
  std::string todo;
  std::vector<std::pair<std::string, std::string>> outputs;  // fixes written to env
};

struct EnvLine {
  std::string name, value;
  std::string origin;  // "NCCL_IB_TIMEOUT=23 (job.sh:12), clamped"
};

struct Translation {
  std::string from, to;  // from is empty for --check
  std::vector<std::string> tables;
  std::vector<VarResult> vars;
  std::vector<CrossResult> cross;
  std::vector<EnvLine> env;
  std::vector<std::string> others;  // names outside every library's namespace
  // Filled by the caller from the readers (EnvInput): lines that hold
  // settings the readers could not take as certain, and inputs in which
  // nothing was recognised.
  std::vector<InputNote> notes;
  std::vector<std::string> empty_files;
};

// `book` supplies the "which library knows this name" hints for unknowns.
Translation translate(const std::vector<EnvEntry>& entries, const RuleSet& rules,
                      const RuleBook& book, const Context& ctx);

}  // namespace hn::compat::translate
