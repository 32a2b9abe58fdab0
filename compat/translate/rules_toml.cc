// Reads one rule table (library or map) from TOML text. Strict like the YAML
// profile reader: every key is known by name, every type is checked, and every
// error is an InputError with the file, the line of the offending value and
// the dotted key.
#include <algorithm>
#include <set>
#include <sstream>
#include <toml.hpp>

#include "compat/input_error.h"
#include "compat/toml_input.h"
#include "compat/toml_table.h"
#include "compat/translate/rules.h"
#include "compat/translate/rules_toml.h"

namespace hn::compat::translate {

namespace {

// The strict reader is shared with the job manifest (compat/toml_table.h).
using Table = TomlTable;

const std::set<std::string> kTypes = {
    "int",        "enum",      "tokens",      "string",      "path",
    "bool",       "ifname",    "ifname-list", "ifname-ompi", "ifname-ompi-exclude",
    "ifname-ccl", "ip",        "host-port",   "ports",       "kv",
    "nccl-algo",  "hccl-algo", "ib-hca"};
const std::set<std::string> kCrossKinds = {"greater",   "equals-profile", "ports",   "requires",
                                           "exclusive", "product-max",    "max-when"};
const std::set<std::string> kConverts = {
    "value", "ifname",    "socket-retry", "connect-timeout-retry", "port-min-range",
    "pfc",   "nccl-algo", "hccl-algo",    "debug-subsys-coll",     "ccl-mnic"};

// The plausible bounds narrow an int's documented range, and each bound needs
// its reason: a bound without a note would turn a value into needs-review
// with nothing to tell the user.
void check_plausible(Table& t, const VarSpec& v) {
  const bool bound = v.plausible_min || v.plausible_max;
  const char* key = v.plausible_min ? "plausible_min" : "plausible_max";
  if (bound && v.type != "int")
    t.fail(*t.get(key), t.field(key), "plausible bounds need type = \"int\"");
  if (bound && v.plausible_note.empty())
    t.fail(*t.get(key), t.field("plausible_note"),
           "plausible_min/plausible_max need a plausible_note saying what such a value looks like");
  if (!bound && !v.plausible_note.empty())
    t.fail(*t.get("plausible_note"), t.field("plausible_note"),
           "plausible_note without plausible_min or plausible_max");
  if (v.plausible_min && v.plausible_max && *v.plausible_min > *v.plausible_max)
    t.fail(*t.get("plausible_min"), t.field("plausible_min"), "is above plausible_max");
  if (v.plausible_min &&
      ((v.min && *v.plausible_min < *v.min) || (v.max && *v.plausible_min > *v.max)))
    t.fail(*t.get("plausible_min"), t.field("plausible_min"), "is outside min/max");
  if (v.plausible_max &&
      ((v.min && *v.plausible_max < *v.min) || (v.max && *v.plausible_max > *v.max)))
    t.fail(*t.get("plausible_max"), t.field("plausible_max"), "is outside min/max");
}

VarSpec parse_var(Table t, const std::string& lib, const std::string& file) {
  VarSpec v;
  v.library = lib;
  v.file = file;
  v.line = t.line();
  v.name = t.required_str("name");
  v.type = t.str("type", "string");
  if (!kTypes.count(v.type))
    t.fail(*t.get("type"), t.field("type"), "unknown type '" + v.type + "'");
  v.unit = t.str("unit");
  v.min = t.integer("min");
  v.max = t.integer("max");
  v.min_exclusive = t.boolean("min_exclusive").value_or(false);
  v.multiple_of = t.integer("multiple_of").value_or(0);
  v.step = t.integer("step").value_or(0);
  v.infinite_at = t.integers("infinite_at");
  v.infinite_from = t.integer("infinite_from");
  v.plausible_min = t.integer("plausible_min");
  v.plausible_max = t.integer("plausible_max");
  v.plausible_note = t.str("plausible_note");
  v.values = t.strings("values");
  v.case_insensitive = t.boolean("case_insensitive").value_or(false);
  v.also_int = t.boolean("also_int").value_or(false);
  if (const toml::value* k = t.get("keys")) {
    if (!k->is_table()) t.fail(*k, t.field("keys"), "expected { KEY = [min, max] }");
    for (const auto& [name, range] : k->as_table()) {
      if (!range.is_array() || range.as_array().size() != 2 || !range.as_array()[0].is_integer() ||
          !range.as_array()[1].is_integer())
        t.fail(range, t.field("keys." + name), "expected [min, max]");
      v.keys[name] = {range.as_array()[0].as_integer(), range.as_array()[1].as_integer()};
    }
  }
  v.default_value = t.str("default");
  v.meaning = t.str("meaning");
  v.range_note = t.str("range_note");
  v.since = t.str("since");
  v.source = t.required_str("source");
  for (auto& p : t.tables("platform")) {
    PlatformRange r;
    r.platforms = p.strings("names");
    for (const auto& name : r.platforms)
      if (std::find(known_platforms().begin(), known_platforms().end(), name) ==
          known_platforms().end())
        p.fail(p.value(), p.field("names"), "unknown platform '" + name + "'");
    r.min = p.integer("min");
    r.max = p.integer("max");
    r.min_exclusive = p.boolean("min_exclusive");
    r.step = p.integer("step");
    r.values = p.strings("values");
    r.note = p.str("note");
    p.finish();
    v.platforms.push_back(std::move(r));
  }
  if (v.type == "enum" && v.values.empty())
    t.fail(t.value(), t.field("values"), "an enum needs values");
  check_plausible(t, v);
  t.finish();
  return v;
}

CrossRule parse_cross(Table t, const std::string& file) {
  CrossRule c;
  c.file = file;
  c.line = t.line();
  c.id = t.required_str("id");
  c.kind = t.required_str("kind");
  if (!kCrossKinds.count(c.kind))
    t.fail(*t.get("kind"), t.field("kind"), "unknown kind '" + c.kind + "'");
  for (const auto& v : t.strings("vars")) c.members.push_back(CrossMember{v, 1, ""});
  for (auto& p : t.tables("port")) {
    CrossMember m;
    m.var = p.required_str("var");
    m.count = p.integer("count").value_or(1);
    m.unless = p.str("unless");
    p.finish();
    c.members.push_back(m);
  }
  c.offset = t.number("offset").value_or(0);
  c.or_equal = t.boolean("or_equal").value_or(false);
  c.advice_offset = t.number("advice_offset").value_or(0);
  c.advice_why = t.str("advice_why");
  c.advice_todo = t.str("advice_todo");
  c.zero_is_infinite = t.boolean("zero_is_infinite").value_or(false);
  c.profile_key = t.str("profile");
  c.value = t.str("value");
  c.max = t.integer("max").value_or(0);
  c.always = t.boolean("always").value_or(false);
  c.when_set = t.boolean("when_set").value_or(false);
  c.fix = t.boolean("fix").value_or(false);
  c.severity = t.str("severity", "review");
  if (c.severity != "review" && c.severity != "warn")
    t.fail(*t.get("severity"), t.field("severity"), "expected review or warn");
  c.why = t.required_str("why");
  c.todo = t.str("todo");
  c.source = t.required_str("source");
  size_t want = c.kind == "greater" || c.kind == "requires" || c.kind == "exclusive" ||
                        c.kind == "product-max" || c.kind == "max-when"
                    ? 2
                : c.kind == "equals-profile" ? 1
                                             : 0;
  if (want && c.members.size() != want)
    t.fail(t.value(), t.field("vars"), c.kind + " needs " + std::to_string(want) + " vars");
  if (c.kind == "ports" && c.members.empty())
    t.fail(t.value(), t.field("port"), "ports needs [[cross.port]] rows");
  t.finish();
  return c;
}

MapRow parse_row(Table t, const std::string& table, const std::string& file) {
  MapRow r;
  r.table = table;
  r.file = file;
  r.line = t.line();
  r.from = t.strings("from");
  if (r.from.empty()) t.fail(t.value(), t.field("from"), "missing required key");
  r.to = t.strings("to");
  r.action = t.str("action", "map");
  if (r.action != "map" && r.action != "drop" && r.action != "review")
    t.fail(*t.get("action"), t.field("action"), "expected map, drop or review");
  if (r.action == "map" && r.to.empty())
    t.fail(t.value(), t.field("to"), "a map row needs a target");
  r.convert = t.str("convert", "value");
  if (!kConverts.count(r.convert))
    t.fail(*t.get("convert"), t.field("convert"), "unknown conversion '" + r.convert + "'");
  r.multiply = t.integer("multiply").value_or(1);
  r.min_default_share = t.number("min_default_share").value_or(0);
  r.max_default_ratio = t.number("max_default_ratio").value_or(0);
  r.divide = t.integer("divide").value_or(1);
  if (r.multiply < 1 || r.divide < 1)
    t.fail(t.value(), t.field("multiply"), "multiply and divide must be positive");
  r.round = t.str("round", "up");
  if (r.round != "up" && r.round != "down" && r.round != "nearest")
    t.fail(*t.get("round"), t.field("round"), "expected up, down or nearest");
  r.clamp = t.boolean("clamp").value_or(true);
  r.values = t.string_map("values");
  r.drop_values = t.string_map("drop_values");
  r.not_a_variable = t.boolean("not_a_variable").value_or(false);
  r.risk = t.boolean("risk").value_or(false);
  r.unit = t.str("unit");
  r.grammar = t.str("grammar");
  r.defaults = t.str("defaults");
  r.why = t.str("why");
  r.todo = t.str("todo");
  r.source = t.required_str("source");
  if (r.action != "map" && r.why.empty())
    t.fail(t.value(), t.field("why"), "a " + r.action + " row must say why");
  if ((r.action == "review" || r.risk) && r.todo.empty())
    t.fail(t.value(), t.field("todo"), "this row must say what to do (todo)");
  t.finish();
  return r;
}

}  // namespace

ParsedTable parse_rule_table(const std::string& text, const std::string& file) {
  const toml::value root = parse_toml_text(text, file);
  Table t(root, file, "");
  ParsedTable out;
  if (t.get("library")) {
    Library lib;
    lib.file = file;
    lib.name = t.required_str("library");
    lib.title = t.str("title");
    lib.extends = t.strings("extends");
    lib.prefixes = t.strings("prefixes");
    if (const toml::value* pg = t.get("pg_timeout")) {
      Table p(*pg, file, "pg_timeout");
      lib.pg_timeout_default_s = p.number("default_s");
      lib.pg_timeout_plus_var = p.str("plus_var");
      lib.pg_timeout_source = p.required_str("source");
      p.finish();
    }
    for (auto& v : t.tables("var")) {
      VarSpec spec = parse_var(std::move(v), lib.name, file);
      if (lib.vars.count(spec.name))
        throw InputError(file, spec.line, 0, "var", "variable " + spec.name + " is listed twice");
      lib.vars[spec.name] = std::move(spec);
    }
    for (auto& c : t.tables("cross")) lib.cross.push_back(parse_cross(std::move(c), file));
    t.finish();
    out.library = std::move(lib);
    return out;
  }
  MapTable m;
  m.file = file;
  m.from = t.required_str("from");
  m.to = t.required_str("to");
  m.name = t.str("name", m.from + "-to-" + m.to);
  m.include = t.strings("include");
  std::set<std::string> seen;
  for (auto& r : t.tables("row")) {
    MapRow row = parse_row(std::move(r), m.name, file);
    if (!seen.insert(row.id()).second)
      throw InputError(file, row.line, 0, "row", "a row for " + row.id() + " is listed twice");
    m.rows.push_back(std::move(row));
  }
  t.finish();
  out.map = std::move(m);
  return out;
}

}  // namespace hn::compat::translate
