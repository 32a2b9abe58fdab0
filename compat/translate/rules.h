#pragma once
// The translation rules as data (TOML tables under profiles/translate/).
//
// Two kinds of table:
//  * a library table (lib-<name>.toml) says what a valid value is for every
//    variable one library reads: type/grammar, unit, range, default, meaning
//    and the source of each fact, plus the cross-variable rules that library
//    imposes (one [[cross]] row each);
//  * a map table (<from>-to-<to>.toml) has one [[row]] per source variable:
//    the target variable, the unit conversion, the grammar conversion, the
//    value mapping, the default difference and the source of the fact. The
//    range a row is checked against is the target library's row for its
//    target variable, so each fact lives once.
//
// RuleBook::load() parses the tables compiled into the binary and then any
// --rules files, which replace a table of the same name or add new ones.
// Every error in a table is a compat::InputError naming the file, line and
// key. Tables may include others (`include`/`extends`); a row or variable
// given again replaces the included one.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hn::compat::translate {

// A per-platform override of a variable's range (HCCL ranges differ by chip).
struct PlatformRange {
  std::vector<std::string> platforms;
  std::optional<long long> min, max;
  std::optional<bool> min_exclusive;
  std::optional<long long> step;
  std::string note;
  std::vector<std::string> values;  // an enum's values on these platforms (replaces the list)
};

struct VarSpec {
  std::string name;
  std::string library;
  // int | enum | tokens | string | path | bool | ifname | ifname-list | ifname-ompi |
  // ifname-ccl | ip | host-port | ports | kv | nccl-algo | hccl-algo | ib-hca
  std::string type = "string";
  std::string unit;  // s, ms, MB, bytes, count, exponent, port, tos, level, ...
  std::optional<long long> min, max;
  bool min_exclusive = false;
  long long multiple_of = 0;               // HCCL_RDMA_TC: 4
  long long step = 0;                      // values round down to a multiple of step
  std::vector<long long> infinite_at;      // values that mean "no limit" (NCCL_IB_TIMEOUT 0)
  std::optional<long long> infinite_from;  // and everything from here up (>= 32)
  // Inside the range but not what anyone means on purpose: a value of the
  // other library's unit copied verbatim (HCCL_BUFFSIZE=8388608 MB is 8 TB).
  // The library accepts it, so it is not clamped; outside these bounds the
  // value needs review instead, with plausible_note saying what it looks like.
  std::optional<long long> plausible_min, plausible_max;
  std::string plausible_note;
  std::vector<std::string> values;  // enum/tokens: allowed tokens
  bool case_insensitive = false;
  bool also_int = false;  // enum that also takes a plain integer (NCCL_P2P_LEVEL)
  std::map<std::string, std::pair<long long, long long>> keys;  // kv: key -> [min, max]
  std::string default_value;  // as text; empty when the variable has no default
  std::string meaning;
  std::string range_note;  // what happens outside the range, in the library's own words
  std::string since;       // first version that reads it
  std::string source;
  std::vector<PlatformRange> platforms;
  std::string file;
  int line = 0;
};

struct CrossMember {
  std::string var;
  long long count = 1;  // ports: how many ports from the value up (HCCL_IF_BASE_PORT: 32)
  std::string unless;   // ports: skip the default when this variable is set
};

struct CrossRule {
  std::string id;
  // greater | equals-profile | ports | requires | exclusive | product-max |
  // max-when (the second variable at most `max` when the first is `value`)
  std::string kind;
  std::vector<CrossMember> members;  // greater: [left, right]; others: the variables
  double offset = 0;                 // greater: left > right + offset
  bool or_equal = false;             // greater: left >= right + offset passes too
  // greater: a value that passes but is not above right + offset +
  // advice_offset is advice (WARN) with its own why/todo.
  double advice_offset = 0;
  std::string advice_why, advice_todo;
  bool zero_is_infinite = false;  // greater: 0 means "never" on either side
  std::string profile_key;        // equals-profile: pfc_priority
  std::string value;              // requires/exclusive: the value that triggers it
  long long max = 0;              // product-max; max-when: the second's maximum
  bool always = false;            // evaluate with defaults even when nothing is set
  // greater: only when the first variable is set. torch_npu derives an unset
  // HCCL_EVENT_TIMEOUT from HCCL_EXEC_TIMEOUT (+30 s), so the rule cannot fail
  // unless the input sets it.
  bool when_set = false;
  bool fix = false;                 // equals-profile: write the profile's value
  std::string severity = "review";  // review (FAIL) | warn (WARN)
  std::string why;
  std::string todo;
  std::string source;
  std::string file;
  int line = 0;
};

struct Library {
  std::string name;
  std::string title;
  std::vector<std::string> extends;
  std::vector<std::string> prefixes;  // a variable with one of these that no row knows is "unknown"
  std::optional<double> pg_timeout_default_s;
  std::string pg_timeout_plus_var;  // the default is default_s + this variable (torch_npu)
  std::string pg_timeout_source;
  std::map<std::string, VarSpec> vars;
  std::vector<CrossRule> cross;
  std::string file;
};

struct MapRow {
  std::vector<std::string> from;
  std::vector<std::string> to;
  std::string action = "map";     // map | drop | review
  std::string convert = "value";  // value | ifname | socket-retry | connect-timeout-retry |
                                  // port-min-range | pfc | nccl-algo | hccl-algo |
                                  // debug-subsys-coll | ccl-mnic
  long long multiply = 1, divide = 1;
  std::string round = "up";  // up | down | nearest, when divide does not divide evenly
  bool clamp = true;         // out of the target range: clamp (true) or needs-review
  // A converted value below this share of the target's default is not carried
  // over (NCCL_BUFFSIZE=2097152 is 2 MB, 1% of HCCL_BUFFSIZE's 200): the two
  // buffers mean different things, and the unit alone does not say the size.
  double min_default_share = 0;
  // Likewise above this multiple of the target's default (HCCL_BUFFSIZE=400,
  // one buffer per communicator, would be 400 MiB per NCCL channel and
  // connection, 100 times NCCL's 4 MiB).
  double max_default_ratio = 0;
  std::map<std::string, std::string> values;       // value mapping (source -> target)
  std::map<std::string, std::string> drop_values;  // source values with no counterpart -> why
  bool not_a_variable = false;  // the source name is not read by the library at all
  bool risk = false;            // drop: the setting did something that must be redone by hand
  std::string unit;             // the unit conversion, for people ("bytes -> MB, rounded up")
  std::string grammar;          // the grammar conversion, for people
  std::string defaults;         // the default difference
  std::string why;              // drop/review: the reason; map: a note added to the finding
  std::string todo;             // what a person does next (review, risky drop)
  std::string source;
  std::string table;  // the map table that declared it
  std::string file;
  int line = 0;

  std::string id()
      const;  // "NCCL_IB_TIMEOUT" or "NCCL_SOCKET_RETRY_CNT+NCCL_SOCKET_RETRY_SLEEP_MSEC"
};

struct MapTable {
  std::string name;  // nccl-to-hccl
  std::string from, to;
  std::vector<std::string> include;
  std::vector<MapRow> rows;
  std::string file;
};

// Everything one translation needs, with includes and extends resolved.
struct RuleSet {
  std::string from, to;             // library names; from is empty for --check
  std::vector<std::string> tables;  // map tables in effect, for the report
  std::map<std::string, VarSpec> source_vars;
  std::map<std::string, VarSpec> target_vars;
  std::vector<MapRow> rows;  // in table order, included tables first
  std::vector<CrossRule> cross;
  std::optional<double> pg_timeout_default_s;
  std::string pg_timeout_plus_var;
  std::string pg_timeout_source;

  const MapRow* row_for(const std::string& source_var) const;
  const VarSpec* target(const std::string& name) const;
  const VarSpec* source(const std::string& name) const;
};

class RuleBook {
 public:
  // The embedded tables, then each override file in order. Throws InputError.
  static RuleBook load(const std::vector<std::string>& override_files = {});
  // Parses one table's text (tests, and load()).
  void add_table_text(const std::string& text, const std::string& file);

  RuleSet for_translation(const std::string& from, const std::string& to) const;
  RuleSet for_check(const std::string& to) const;

  const std::map<std::string, Library>& libraries() const { return libraries_; }
  const std::map<std::string, MapTable>& maps() const { return maps_; }
  // The libraries (by name) whose variables or prefixes cover `var`.
  std::vector<std::string> libraries_knowing(const std::string& var) const;
  // Variables of every library, with extends resolved.
  std::map<std::string, VarSpec> library_vars(const std::string& name) const;

 private:
  void collect_vars(const std::string& lib, std::map<std::string, VarSpec>& out,
                    std::vector<std::string>& seen) const;
  void collect_rows(const std::string& table, std::vector<MapRow>& out,
                    std::vector<std::string>& seen, std::vector<std::string>& names) const;
  std::map<std::string, Library> libraries_;
  std::map<std::string, MapTable> maps_;
};

// The effective range of a variable on a platform ("a2", "atlas-training", ...).
struct EffectiveRange {
  std::optional<long long> min, max;
  bool min_exclusive = false;
  long long step = 0;
  std::vector<std::string> values;  // an enum's values on the platform
};
EffectiveRange effective_range(const VarSpec& v, const std::string& platform);
std::string range_text(const EffectiveRange& r);

// The platforms --platform accepts; the first is the default.
const std::vector<std::string>& known_platforms();

}  // namespace hn::compat::translate
