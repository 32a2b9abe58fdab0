// The translation pipeline: last assignment wins -> classify each variable
// (a map row, the target's own variable, unknown, or not ours) -> convert ->
// merge outputs (explicit target settings win; conflicting rows need review)
// -> cross-variable rules -> the env lines to write.
#include "compat/translate/translator.h"

#include <algorithm>
#include <map>
#include <set>

#include "compat/translate/converters.h"
#include "compat/translate/cross_rules.h"

namespace hn::compat::translate {

std::string to_string(Outcome o) {
  switch (o) {
    case Outcome::kTranslated:
      return "translated";
    case Outcome::kConverted:
      return "converted";
    case Outcome::kClamped:
      return "clamped";
    case Outcome::kInvalid:
      return "invalid";
    case Outcome::kNeedsReview:
      return "needs-review";
    case Outcome::kDropped:
      return "dropped";
    case Outcome::kUnknown:
      return "unknown";
  }
  return "unknown";
}

namespace {

// An invalid value (--check) is written in its fixed form: that is what
// `--check --out fixed.env` is for, and the exit code still fails the gate.
bool writes(Outcome o) {
  return o == Outcome::kTranslated || o == Outcome::kConverted || o == Outcome::kClamped ||
         o == Outcome::kInvalid;
}

struct Claim {
  std::string value;
  size_t owner;  // index into Translation::vars
  size_t order;  // input position, for the order of the written file
  bool is_explicit;
};

VarResult from_row(const EnvEntry& e, const MapRow& row, const RowResult& rr) {
  VarResult v;
  v.input = e;
  v.outcome = rr.outcome;
  v.outputs = rr.outputs;
  v.rule = row.id();
  v.table = row.table;
  v.target = join(row.to, ", ");
  v.range = rr.range;
  v.detail = rr.detail;
  v.todo = rr.todo;
  v.risk = rr.risk;
  v.source = row.source;
  return v;
}

std::string unknown_detail(const RuleBook& book, const std::string& name) {
  std::vector<std::string> listing, prefix;
  for (const auto& lib : book.libraries_knowing(name))
    (book.libraries().at(lib).vars.count(name) ? listing : prefix).push_back(lib);
  if (!listing.empty())
    return "the " + join(listing, ", ") +
           " table lists it, but this translation does not use that table";
  return "no table lists it (its prefix belongs to " + join(prefix, ", ") + ")";
}

}  // namespace

Translation translate(const std::vector<EnvEntry>& entries, const RuleSet& rules,
                      const RuleBook& book, const Context& ctx) {
  Translation t;
  t.from = rules.from;
  t.to = rules.to;
  t.tables = rules.tables;
  const bool check = rules.from.empty();

  // 1. The last assignment of a name is the one a program sees.
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < entries.size(); ++i) last[entries[i].name] = i;
  std::map<std::string, std::vector<std::string>> also_at;
  std::vector<const EnvEntry*> kept;
  std::vector<size_t> kept_pos;
  std::set<std::string> others;
  for (size_t i = 0; i < entries.size(); ++i) {
    const EnvEntry& e = entries[i];
    const EnvEntry& final_e = entries[last[e.name]];
    bool ours =
        !book.libraries_knowing(e.name).empty() || rules.row_for(e.name) || rules.target(e.name);
    if (!ours) {
      others.insert(e.name);
      continue;
    }
    if (i == last[e.name]) {
      kept.push_back(&e);
      kept_pos.push_back(i);
    } else if (e.value == final_e.value) {
      also_at[e.name].push_back(e.where());
    } else {
      VarResult v;
      v.input = e;
      v.outcome = Outcome::kDropped;
      v.rule = "override";
      v.detail = "overridden by " + e.name + "=" + final_e.value + " at " + final_e.where();
      v.todo = "Remove one of the two settings so the script says one thing.";
      v.risk = true;
      t.vars.push_back(std::move(v));
    }
  }
  t.others.assign(others.begin(), others.end());

  // 2. Classify and convert, in input order; a multi-variable row runs once.
  std::vector<size_t> order_of(t.vars.size(), 0);
  std::map<std::string, size_t> row_done;  // row id -> index of its first VarResult
  for (size_t k = 0; k < kept.size(); ++k) {
    const EnvEntry& e = *kept[k];
    VarResult v;
    const MapRow* row = check ? nullptr : rules.row_for(e.name);
    if (row && row_done.count(row->id())) {
      v = t.vars[row_done[row->id()]];  // the row ran once for all its variables
      v.input = e;
      v.also_at.clear();
    } else if (row) {
      RowInput in{*row, {}, rules, ctx};
      for (const EnvEntry* p : kept)
        if (std::find(row->from.begin(), row->from.end(), p->name) != row->from.end())
          in.present.push_back(p);
      v = from_row(e, *row, convert_row(in));
      row_done[row->id()] = t.vars.size();
    } else if (const VarSpec* spec = rules.target(e.name)) {
      RowResult rr = check_target_value(*spec, e, ctx, check);
      v.input = e;
      v.outcome = rr.outcome;
      v.outputs = rr.outputs;
      v.rule = check ? "check" : "target";
      v.table = "lib-" + spec->library;
      v.target = spec->name;
      v.range = rr.range;
      v.detail = rr.detail;
      v.todo = rr.todo;
      v.source = spec->source;
    } else {
      v.input = e;
      v.outcome = Outcome::kUnknown;
      v.detail = unknown_detail(book, e.name);
    }
    if (also_at.count(e.name)) v.also_at = also_at[e.name];
    t.vars.push_back(std::move(v));
    order_of.push_back(kept_pos[k]);
  }

  // 3. Merge: a target variable the input sets itself wins over translations.
  std::map<std::string, Claim> claims;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < t.vars.size(); ++i) {
      VarResult& v = t.vars[i];
      bool is_explicit = v.rule == "target" || v.rule == "check";
      if (is_explicit != (pass == 0) || !writes(v.outcome)) continue;
      for (const auto& [name, value] : v.outputs) {
        auto it = claims.find(name);
        if (it == claims.end()) continue;
        if (it->second.value == value) continue;
        const VarResult& owner = t.vars[it->second.owner];
        if (it->second.is_explicit) {
          v.outcome = Outcome::kDropped;
          v.detail = name + " is set explicitly at " + owner.input.where() + " (" +
                     it->second.value + "), which wins over this translation (" + value + ")";
        } else {
          v.outcome = Outcome::kNeedsReview;
          v.detail = "conflicts with " + owner.input.name + " (" + owner.input.where() +
                     "): both set " + name + ", to " + it->second.value + " and " + value;
          v.todo = "Keep only one of the two settings.";
        }
        v.outputs.clear();
        break;
      }
      for (const auto& [name, value] : v.outputs)
        if (!claims.count(name)) claims[name] = Claim{value, i, order_of[i], is_explicit};
    }
  }

  // 4. Cross-variable rules see the merged result (and may add profile fixes).
  std::map<std::string, std::string> env;
  for (const auto& [name, c] : claims) env[name] = c.value;
  t.cross = evaluate_cross(rules, env, ctx);

  // 5. The lines to write, in input order.
  std::vector<std::pair<size_t, EnvLine>> lines;
  for (const auto& [name, c] : claims) {
    const VarResult& v = t.vars[c.owner];
    std::string origin;
    for (const auto& other : t.vars)
      if (other.rule == v.rule && !v.rule.empty() && v.rule != "target" && v.rule != "check" &&
          writes(other.outcome))
        origin += (origin.empty() ? "" : ", ") + other.input.name + "=" + other.input.value + " (" +
                  other.input.where() + ")";
    if (origin.empty()) origin = v.input.name + "=" + v.input.value + " (" + v.input.where() + ")";
    lines.push_back({c.order, EnvLine{name, c.value, origin + ", " + to_string(v.outcome)}});
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [pos, line] : lines) t.env.push_back(std::move(line));
  for (const auto& c : t.cross)
    for (const auto& [name, value] : c.outputs)
      t.env.push_back(EnvLine{name, value,
                              "cross rule " + c.id + " (profile " +
                                  (ctx.profile_name.empty() ? "" : ctx.profile_name) + ")"});
  return t;
}

}  // namespace hn::compat::translate
