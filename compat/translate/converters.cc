// The generic conversion (typed value -> value mapping -> unit scaling ->
// fit into the target's range) and the dispatch to the special ones.
#include "compat/translate/converters.h"

#include <cstdio>
#include <stdexcept>

#include "compat/input_error.h"

namespace hn::compat::translate {

namespace detail {

ParsedValue parse_entry(const VarSpec* spec, const EnvEntry& e, const std::string& platform) {
  if (!spec) {
    ParsedValue pv;
    pv.text = e.value;
    return pv;
  }
  try {
    return parse_typed(*spec, e.value, platform);
  } catch (const std::invalid_argument& x) {
    throw InputError(e.file, e.line, 0, e.name, "'" + e.value + "': " + x.what());
  }
}

std::string source_range_note(const VarSpec& spec, const std::string& value,
                              const std::string& platform) {
  std::string s = value + " is outside " + spec.library + "'s documented range " +
                  range_text(effective_range(spec, platform)) + " for " + spec.name;
  if (!spec.range_note.empty()) s += " (" + spec.range_note + ")";
  return s;
}

std::string accepted_values(const VarSpec& spec, const std::string& platform) {
  if (spec.type == "kv") {
    std::string s;
    for (const auto& [k, range] : spec.keys)
      s += (s.empty() ? "" : ", ") + k + " [" + std::to_string(range.first) + ", " +
           std::to_string(range.second) + "]";
    return s;
  }
  std::string s = range_text(effective_range(spec, platform));
  if (spec.multiple_of) s += ", multiples of " + std::to_string(spec.multiple_of);
  return s;
}

std::string plausible_todo(const VarSpec& spec) {
  std::string unit = spec.unit.empty() ? "" : " " + spec.unit;
  return "Check the unit: " + spec.name + " is in" + (unit.empty() ? " its own units" : unit) +
         (spec.default_value.empty() ? "" : " (default " + spec.default_value + unit + ")") +
         ". Set the size you mean in" + (unit.empty() ? " those units" : unit) + ".";
}

RowResult needs_review(std::string detail, std::string todo) {
  RowResult r;
  r.outcome = Outcome::kNeedsReview;
  r.detail = std::move(detail);
  r.todo = std::move(todo);
  return r;
}

SourceValue source_int(const RowInput& in, const std::string& name) {
  SourceValue sv;
  const VarSpec* spec = in.rules.source(name);
  for (const EnvEntry* e : in.present)
    if (e->name == name) sv.entry = e;
  std::string text = sv.entry ? sv.entry->value : spec ? spec->default_value : "";
  if (sv.entry) {
    ParsedValue pv = parse_entry(spec, *sv.entry, in.ctx.platform);
    if (!pv.number)
      throw InputError(sv.entry->file, sv.entry->line, 0, name, "expected an integer");
    sv.number = *pv.number;
    return sv;
  }
  auto v = parse_int(text);
  if (!v) throw std::logic_error("rules: " + name + " has no numeric default");
  sv.number = *v;
  return sv;
}

}  // namespace detail

using namespace detail;

std::string render_rule_text(const std::string& tmpl,
                             const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    size_t end = tmpl[i] == '{' ? tmpl.find('}', i) : std::string::npos;
    if (end == std::string::npos) {
      out += tmpl[i];
      continue;
    }
    std::string name = tmpl.substr(i + 1, end - i - 1);
    bool found = false;
    for (const auto& [k, v] : params)
      if (k == name) {
        out += v;
        found = true;
        break;
      }
    if (!found) out += tmpl.substr(i, end - i + 1);
    i = end;
  }
  return out;
}

namespace {

bool same_token(const std::string& a, const std::string& b, bool ci) {
  return ci ? to_lower(a) == to_lower(b) : a == b;
}

std::string join_notes(const std::vector<std::string>& notes) {
  std::string s;
  for (const auto& n : notes)
    if (!n.empty()) s += (s.empty() ? "" : "; ") + n;
  return s;
}

RowResult convert_value(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  const std::string& platform = in.ctx.platform;
  const VarSpec* src = in.rules.source(e.name);
  const std::string& to = in.row.to.front();
  const VarSpec* dst = in.rules.target(to);
  ParsedValue pv = parse_entry(src, e, platform);
  std::vector<std::string> notes;
  // Only a documented "no limit" value gets here outside the source's range
  // (convert_row sends the rest to review): say what it means.
  if (pv.outside_range && src) notes.push_back(source_range_note(*src, e.value, platform));
  bool ci = src && src->case_insensitive;
  for (const auto& [key, why] : in.row.drop_values)
    if (same_token(key, pv.text, ci)) {
      RowResult r;
      r.outcome = Outcome::kDropped;
      r.detail = render_rule_text(why, {{"value", e.value}, {"to", to}});
      return r;
    }
  std::string text = pv.text;
  bool changed = false;
  if (!in.row.values.empty()) {
    bool mapped = false;
    std::string keys;
    for (const auto& [key, target] : in.row.values) {
      keys += (keys.empty() ? "" : ", ") + key;
      if (!mapped && same_token(key, pv.text, ci)) {
        text = target;
        mapped = true;
      }
    }
    if (!mapped)
      return needs_review(
          e.value + " has no counterpart in " + to + " (mapped values: " + keys + ")",
          "Choose the " + to + " value by hand and set it explicitly.");
    changed = text != pv.text;
  }
  std::optional<long long> num;
  bool infinite = pv.infinite && in.row.values.empty();
  if (in.row.multiply != 1 || in.row.divide != 1) {
    if (!pv.number)
      throw std::logic_error("rules: scaling row " + in.row.id() + " on a non-number");
    long long scaled = *pv.number * in.row.multiply;
    long long q = scaled / in.row.divide, rem = scaled % in.row.divide;
    if (rem != 0) {
      if (in.row.round == "up" || (in.row.round == "nearest" && rem * 2 >= in.row.divide)) ++q;
      notes.push_back("not a whole number of " + (dst ? dst->unit : std::string("units")) +
                      ": rounded " +
                      (in.row.round == "down" ? "down"
                       : in.row.round == "up" ? "up"
                                              : "to nearest"));
    }
    num = q;
    changed = true;
  } else if (dst && dst->type == "int") {
    num = parse_int(text);
    if (!num) throw std::logic_error("rules: " + in.row.id() + " maps to a non-integer for " + to);
  }
  RowResult r;
  r.outcome = Outcome::kTranslated;
  if (dst && dst->type == "int" && num) {
    FitResult f = fit_number(*dst, *num, infinite, platform);
    r.range = range_text(effective_range(*dst, platform));
    text = std::to_string(f.value);
    // The source was plausible (convert_row), so an implausible result means
    // the unit conversion met a value nobody uses (NCCL_BUFFSIZE of 100 GB).
    if (std::string p = infinite ? "" : plausibility_problem(*dst, f.value); !p.empty())
      return needs_review(e.name + "=" + e.value + " becomes " + to + "=" + text + ": " + p,
                          plausible_todo(*dst));
    // Judged by value, not only by unit: far below the target's default, the
    // converted number is not what the source setting asked for.
    const auto def = parse_int(dst->default_value);
    const bool below =
        in.row.min_default_share > 0 && def && *def > 0 && !infinite &&
        static_cast<double>(f.value) < in.row.min_default_share * static_cast<double>(*def);
    const bool above =
        in.row.max_default_ratio > 0 && def && *def > 0 && !infinite &&
        static_cast<double>(f.value) > in.row.max_default_ratio * static_cast<double>(*def);
    if (below || above) {
      RowResult d;
      d.outcome = Outcome::kDropped;
      d.risk = true;
      char share[32];
      const double ratio = static_cast<double>(f.value) / static_cast<double>(*def);
      if (below)
        std::snprintf(share, sizeof share, "%.0f%% of ", 100.0 * ratio);
      else
        std::snprintf(share, sizeof share, "%.0f times ", ratio);
      d.detail = e.name + "=" + e.value + " would be " + to + "=" + text + " " + dst->unit + ", " +
                 share + to + "'s default " + dst->default_value + " " + dst->unit +
                 "; not carried over, " + to + " keeps its default. " +
                 render_rule_text(in.row.why, {{"value", e.value}, {"result", text}, {"to", to}});
      d.todo = "Keep " + to + " at its default " + dst->default_value + " " + dst->unit +
               (below ? " unless the job must save device memory; then set it by hand."
                      : " unless the job needs larger buffers; then size it by hand for " + to +
                            "'s own meaning.");
      return d;
    }
    if (f.status == FitResult::kClamped) {
      r.outcome = Outcome::kClamped;
      notes.push_back(pv.infinite ? e.value + " means no limit; " + to + " accepts " + r.range +
                                        ", " + f.detail
                                  : "outside " + to + "'s range " + r.range + ", " + f.detail);
    } else if (f.status == FitResult::kRounded) {
      changed = true;
      notes.push_back(f.detail);
    } else if (!f.detail.empty()) {
      notes.push_back(f.detail);
    }
  } else if (dst) {
    try {
      text = parse_typed(*dst, text, platform).text;
    } catch (const std::invalid_argument& x) {
      return needs_review(
          e.value + " becomes '" + text + "', which " + to + " does not accept: " + x.what(),
          "Choose the " + to + " value by hand and set it explicitly.");
    }
  }
  if (r.outcome != Outcome::kClamped && (changed || text != pv.text))
    r.outcome = Outcome::kConverted;
  std::vector<std::pair<std::string, std::string>> params = {
      {"value", e.value}, {"result", text}, {"to", to}, {"range", r.range}};
  if (dst && dst->unit == "tos" && num)
    params.push_back({"dscp", std::to_string(std::stoll(text) / 4)});
  if (dst && dst->unit == "exponent" && num) {
    params.push_back({"time", format_seconds(ib_timeout_seconds(std::stoll(text)))});
    params.push_back(
        {"source_time", pv.infinite ? "infinite" : format_seconds(ib_timeout_seconds(*pv.number))});
  }
  notes.push_back(render_rule_text(in.row.why, params));
  r.outputs = {{to, text}};
  r.detail = join_notes(notes);
  if (r.outcome == Outcome::kClamped)
    r.todo = in.row.todo.empty() ? "Check that " + to + "=" + text + " is what the job needs."
                                 : render_rule_text(in.row.todo, params);
  return r;
}

}  // namespace

namespace {

// How an int value breaks its variable's rules, or "" when it does not: the
// range (with the library's own note), multiple_of, or both.
std::string broken_rule(const VarSpec& spec, const EnvEntry& e, bool infinite, const FitResult& f,
                        const std::string& range) {
  if (f.status == FitResult::kClamped) {
    std::string s = infinite ? e.value + " means no limit, which " + spec.name +
                                   " cannot express: its range is " + range
                             : e.value + " is outside " + spec.name + "'s range " + range;
    if (!spec.range_note.empty()) s += " (" + spec.range_note + ")";
    if (f.off_multiple) s += ", and it must be a multiple of " + std::to_string(spec.multiple_of);
    return s;
  }
  if (f.off_multiple)
    return e.value + " is not a multiple of " + std::to_string(spec.multiple_of) + ", which " +
           spec.name + " must be";
  return "";
}

}  // namespace

RowResult check_target_value(const VarSpec& spec, const EnvEntry& e, const Context& ctx,
                             bool check) {
  RowResult r;
  if (e.dynamic) {
    r.detail = "the script computes it at run time; it stays there";
    return r;
  }
  ParsedValue pv = parse_entry(&spec, e, ctx.platform);
  std::string text = pv.text;
  if (spec.type == "int" && pv.number) {
    r.range = range_text(effective_range(spec, ctx.platform));
    FitResult f = fit_number(spec, *pv.number, pv.infinite, ctx.platform);
    text = std::to_string(f.value);
    std::string broken = broken_rule(spec, e, pv.infinite, f, r.range);
    // Checked on the value that would be written: suggesting the nearest
    // valid value is no help when that value is implausible too.
    if (std::string p = pv.infinite ? "" : plausibility_problem(spec, f.value); !p.empty()) {
      RowResult rev = needs_review(
          broken.empty() ? p : broken + "; the nearest valid value " + text + " is no better: " + p,
          plausible_todo(spec));
      rev.range = r.range;
      return rev;
    }
    if (check && !broken.empty()) {
      r.outcome = Outcome::kInvalid;
      r.detail = broken;
      r.todo = "Set " + spec.name + "=" + text + ", or another value " + spec.library +
               " accepts: " + accepted_values(spec, ctx.platform) + ".";
    } else if (f.status == FitResult::kClamped) {
      r.outcome = Outcome::kClamped;
      r.detail = "outside " + spec.name + "'s range " + r.range + ", " + f.detail;
      if (!spec.range_note.empty()) r.detail += " (" + spec.range_note + ")";
      r.todo = "Check that " + spec.name + "=" + text + " is what the job needs.";
    } else if (f.status == FitResult::kRounded || f.value != *pv.number) {
      // A platform step the library rounds to itself, a "no limit" value
      // spelled differently, or hex: the same setting, written canonically.
      r.outcome = Outcome::kConverted;
      r.detail = f.detail;
    }
  } else if (spec.type == "kv" && pv.outside_range) {
    std::vector<std::string> parts;
    for (const auto& item : split(e.value, ',')) {
      size_t colon = item.find(':');
      std::string key = item.substr(0, colon);
      auto [lo, hi] = spec.keys.at(key);
      long long v = *parse_int(item.substr(colon + 1));
      parts.push_back(key + ":" + std::to_string(std::min(std::max(v, lo), hi)));
    }
    text = join(parts, ",");
    r.outcome = check ? Outcome::kInvalid : Outcome::kClamped;
    r.detail = "a key is outside its range (";
    for (const auto& [k, range] : spec.keys)
      r.detail +=
          k + " [" + std::to_string(range.first) + ", " + std::to_string(range.second) + "] ";
    r.detail.back() = ')';
    r.todo = check ? "Set " + spec.name + "=" + text + ", or other values within " +
                         accepted_values(spec, ctx.platform) + "."
                   : "Check that " + spec.name + "=" + text + " is what the job needs.";
  } else if (spec.type == "ports" && (spec.min || spec.max)) {
    PortSpec ps = parse_port_spec(e.value);
    for (const auto& pr : ps.ranges)
      if ((spec.min && pr.lo < *spec.min) || (spec.max && pr.hi > *spec.max))
        return needs_review(e.value + " uses ports outside " +
                                range_text(effective_range(spec, ctx.platform)) +
                                (spec.range_note.empty() ? "" : " (" + spec.range_note + ")"),
                            "Choose ports inside the range and outside ip_local_port_range.");
  }
  if (r.outcome == Outcome::kTranslated && text != e.value) r.outcome = Outcome::kConverted;
  if (r.outcome == Outcome::kConverted && r.detail.empty()) r.detail = "written as " + text;
  r.outputs = {{spec.name, text}};
  return r;
}

RowResult convert_row(const RowInput& in) {
  const MapRow& row = in.row;
  // A value is validated even when the row drops it: a malformed line is an error.
  for (const EnvEntry* e : in.present)
    if (!e->dynamic) parse_entry(in.rules.source(e->name), *e, in.ctx.platform);
  if (row.action == "drop") {
    RowResult r;
    r.outcome = Outcome::kDropped;
    r.detail = row.why;
    r.todo = row.todo;
    r.risk = row.risk;
    return r;
  }
  if (row.action == "review") return needs_review(row.why, row.todo);
  for (const EnvEntry* e : in.present)
    if (e->dynamic)
      return needs_review(
          e->name + " is only known at run time (" + e->raw + ")",
          "Translate inside the job with `hnprecheck translate --from-env`, or write "
          "a literal value.");
  // A source value its own library rejects (or a unit mix-up) has no meaning
  // to carry over: converting it would dress a typo up as a valid target
  // value (NCCL_BUFFSIZE=-1 as HCCL_BUFFSIZE=1). A documented "no limit"
  // value (NCCL_IB_TIMEOUT=99) has a meaning, and converts.
  for (const EnvEntry* e : in.present) {
    const VarSpec* spec = in.rules.source(e->name);
    if (!spec) continue;
    ParsedValue pv = parse_entry(spec, *e, in.ctx.platform);
    if (pv.infinite) continue;
    const bool off_multiple = spec->multiple_of && pv.number && *pv.number % spec->multiple_of != 0;
    if (pv.outside_range || off_multiple) {
      std::string accepted = accepted_values(*spec, in.ctx.platform);
      std::string broken = pv.outside_range
                               ? " is outside " + spec->library + "'s own range " + accepted +
                                     (spec->range_note.empty() ? "" : " (" + spec->range_note + ")")
                               : " is not a multiple of " + std::to_string(spec->multiple_of) +
                                     ", which " + spec->library + " requires (" + accepted + ")";
      return needs_review(e->name + "=" + e->value + broken + "; fix the source value first",
                          "Set " + e->name + " to a value " + spec->library + " accepts (" +
                              accepted + ") in the source configuration, then translate again.");
    }
    if (std::string p = pv.number ? plausibility_problem(*spec, *pv.number) : ""; !p.empty())
      return needs_review(e->name + "=" + e->value + ": " + p, plausible_todo(*spec));
  }
  const std::string& c = row.convert;
  if (c == "value") return convert_value(in);
  if (c == "ifname") return convert_ifname(in);
  if (c == "socket-retry") return convert_socket_retry(in);
  if (c == "connect-timeout-retry") return convert_connect_timeout_retry(in);
  if (c == "port-min-range") return convert_port_min_range(in);
  if (c == "pfc") return convert_pfc(in);
  if (c == "nccl-algo") return convert_nccl_algo(in);
  if (c == "hccl-algo") return convert_hccl_algo(in);
  if (c == "debug-subsys-coll") return convert_debug_subsys(in);
  if (c == "ccl-mnic") return convert_ccl_mnic(in);
  throw std::logic_error("rules: unknown conversion " + c);
}

}  // namespace hn::compat::translate
