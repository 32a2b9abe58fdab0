// The translation pipeline: last assignment wins -> classify each variable
// (a map row, the target's own variable, unknown, or not ours) -> convert ->
// merge outputs (explicit target settings win; conflicting rows need review)
// -> cross-variable rules -> the env lines to write.
#include "compat/translate/translator.h"

#include <algorithm>
#include <map>
#include <set>

#include "compat/input_error.h"
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
    case Outcome::kConditional:
      return "conditional";
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

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The known variable a typo most likely meant (HCCL_DETERMINISITIC ->
// HCCL_DETERMINISTIC): within two edits, the closest, first by name.
std::string did_you_mean(const RuleBook& book, const std::string& name) {
  std::string best;
  size_t best_d = 3;
  for (const auto& [lib, l] : book.libraries())
    for (const auto& [var, spec] : l.vars) {
      if (var == name) continue;
      size_t d = edit_distance(var, name);
      if (d < best_d || (d == best_d && !best.empty() && var < best)) {
        best_d = d;
        best = var;
      }
    }
  return best;
}

std::string unknown_detail(const RuleBook& book, const std::string& name) {
  std::vector<std::string> listing, prefix;
  for (const auto& lib : book.libraries_knowing(name))
    (book.libraries().at(lib).vars.count(name) ? listing : prefix).push_back(lib);
  if (!listing.empty())
    return "the " + join(listing, ", ") +
           " table lists it, but this translation does not use that table";
  std::string s = "no table lists it (its prefix belongs to " + join(prefix, ", ") + ")";
  if (std::string m = did_you_mean(book, name); !m.empty()) s += "; did you mean " + m + "?";
  return s;
}

// What a value error says, without the file:line: NAME: 'value': it repeats.
std::string reason(const InputError& x, const EnvEntry& e) {
  std::string w = x.what();
  std::string head = e.name + ": '" + e.value + "': ";
  size_t p = w.find(head);
  if (p != std::string::npos) return w.substr(p + head.size());
  p = w.find(e.name + ": ");
  return p == std::string::npos ? w : w.substr(p + e.name.size() + 2);
}

// A value that looks like a template placeholder rather than a setting.
bool placeholder(const std::string& v) {
  return v.find("{{") != std::string::npos || v.find("}}") != std::string::npos ||
         (v.size() > 2 && v.front() == '<' && v.back() == '>');
}

}  // namespace

namespace {

// One certain value of one variable, classified and converted. Throws only
// for a broken rule table; a value its variable's type rejects is
// needs-review here, so one bad line never hides the rest of the input.
class Classifier {
 public:
  Classifier(const RuleSet& rules, const RuleBook& book, const Context& ctx)
      : rules_(rules), book_(book), ctx_(ctx), check_(rules.from.empty()) {}

  VarResult classify(const EnvEntry& e, const std::vector<const EnvEntry*>& kept) const {
    VarResult v;
    v.input = e;
    const MapRow* row = check_ ? nullptr : rules_.row_for(e.name);
    const VarSpec* target = rules_.target(e.name);
    const VarSpec* spec = row ? rules_.source(e.name) : target ? target : rules_.source(e.name);
    if (!e.dynamic && e.value.empty() && spec) {
      v.outcome = Outcome::kDropped;
      v.risk = true;
      v.rule = "empty";
      v.detail = "set to an empty value, which " + spec->library +
                 " reads as unset: its default applies" +
                 (spec->default_value.empty() ? "" : " (" + spec->default_value + ")");
      v.todo = "Remove the setting or give it a value.";
      v.source = spec->source;
      return v;
    }
    if (!e.dynamic && placeholder(e.value) && spec) {
      v.outcome = Outcome::kNeedsReview;
      v.rule = "placeholder";
      v.detail = "'" + e.value + "' is a template placeholder, filled in when the file is deployed";
      v.todo = "Translate the rendered file, or the values the template is filled with.";
      return v;
    }
    try {
      if (row) {
        RowInput in{*row, {}, rules_, ctx_};
        for (const EnvEntry* p : kept)
          if (std::find(row->from.begin(), row->from.end(), p->name) != row->from.end())
            in.present.push_back(p);
        if (in.present.empty()) in.present.push_back(&e);
        return from_row(e, *row, convert_row(in));
      }
      if (target) {
        RowResult rr = check_target_value(*target, e, ctx_, check_);
        v.outcome = rr.outcome;
        v.outputs = rr.outputs;
        v.rule = check_ ? "check" : "target";
        v.table = "lib-" + target->library;
        v.target = target->name;
        v.range = rr.range;
        v.detail = rr.detail;
        v.todo = rr.todo;
        v.source = target->source;
        return v;
      }
      if (const VarSpec* src = check_ ? nullptr : rules_.source(e.name)) {
        // A variable of the source library with no counterpart row: it only
        // tunes the source library. Its value is still held to its type.
        if (!e.dynamic) detail::parse_entry(src, e, ctx_.platform);
        v.outcome = Outcome::kDropped;
        v.rule = "no-counterpart";
        v.table = "lib-" + src->library;
        v.detail = src->library + "-specific" +
                   (src->meaning.empty() ? "" : " (" + src->meaning + ")") + "; " + rules_.to +
                   " has no counterpart, so it is not carried over";
        v.source = src->source;
        return v;
      }
    } catch (const InputError& x) {
      v = VarResult{};
      v.input = e;
      v.outcome = Outcome::kNeedsReview;
      v.rule = "value";
      v.detail = "'" + e.value + "' is not a value " + (spec ? spec->library : "the library") +
                 " reads: " + reason(x, e);
      if (spec) v.source = spec->source;
      v.todo = "Set a value " + (spec ? spec->library : std::string("the library")) +
               " accepts; until then it is not translated.";
      return v;
    }
    v.outcome = Outcome::kUnknown;
    v.detail = unknown_detail(book_, e.name);
    if (size_t p = v.detail.find("did you mean "); p != std::string::npos)
      v.todo = "Check the spelling: " + v.detail.substr(p);
    return v;
  }

  // What each alternative of a conditional setting would become.
  std::string alternatives(const EnvEntry& e) const {
    std::string s;
    for (const auto& a : e.alternatives) {
      std::string what;
      if (a.dynamic) {
        what = "known only at run time";
      } else {
        EnvEntry one = e;
        one.value = one.raw = a.value;
        one.line = a.line;
        one.conditional = false;
        one.alternatives.clear();
        VarResult r = classify(one, {&one});
        std::string outs;
        for (const auto& [k, val] : r.outputs) outs += (outs.empty() ? "" : ", ") + k + "=" + val;
        what = outs.empty() ? to_string(r.outcome) : to_string(r.outcome) + " to " + outs;
      }
      s += (s.empty() ? "" : "; ") + e.name + "=" + a.value + " (" + a.where() +
           (a.condition.empty() ? "" : ", " + a.condition) + "): " + what;
    }
    if (e.maybe_unset) s += (s.empty() ? "" : "; ") + std::string("unset on the other paths");
    return s;
  }

 private:
  const RuleSet& rules_;
  const RuleBook& book_;
  const Context& ctx_;
  bool check_;
};

// Different values given to different commands (mpirun -x on one line, srun
// --export on another) are alternatives, not an override.
EnvEntry per_command(const std::vector<const EnvEntry*>& same) {
  EnvEntry e = *same.back();
  e.conditional = true;
  e.alternatives.clear();
  for (const EnvEntry* p : same) {
    std::vector<EnvAlternative> alts = p->alternatives;
    if (alts.empty())
      alts.push_back(EnvAlternative{p->value, p->file, p->line, p->dynamic,
                                    p->scope.empty() ? "for the whole job" : "for " + p->scope});
    for (auto& a : alts) {
      bool dup = false;
      for (const auto& b : e.alternatives) dup = dup || (b.value == a.value && b.line == a.line);
      if (!dup) e.alternatives.push_back(a);
    }
  }
  return e;
}

}  // namespace

Translation translate(const std::vector<EnvEntry>& entries, const RuleSet& rules,
                      const RuleBook& book, const Context& ctx) {
  Translation t;
  t.from = rules.from;
  t.to = rules.to;
  t.tables = rules.tables;
  Classifier classifier(rules, book, ctx);

  // 1. The last assignment of a name is the one a program sees, unless the
  //    settings belong to different commands (then each is an alternative).
  std::map<std::string, size_t> last;
  std::map<std::string, std::vector<const EnvEntry*>> by_name;
  for (size_t i = 0; i < entries.size(); ++i) {
    last[entries[i].name] = i;
    by_name[entries[i].name].push_back(&entries[i]);
  }
  std::map<std::string, EnvEntry> merged;  // per-command alternatives
  for (const auto& [name, list] : by_name) {
    bool scoped = false, differ = false;
    for (const EnvEntry* p : list) {
      scoped = scoped || !p->scope.empty();
      differ = differ || p->value != list.back()->value || p->conditional;
    }
    if (scoped && differ && list.size() > 1) merged[name] = per_command(list);
  }
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
      kept.push_back(merged.count(e.name) ? &merged[e.name] : &e);
      kept_pos.push_back(i);
    } else if (merged.count(e.name)) {
      continue;  // one of its alternatives
    } else if (e.value == final_e.value && !e.conditional) {
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
  std::vector<const EnvEntry*> certain;
  for (const EnvEntry* p : kept)
    if (!p->conditional) certain.push_back(p);
  for (size_t k = 0; k < kept.size(); ++k) {
    const EnvEntry& e = *kept[k];
    VarResult v;
    const MapRow* row = rules.from.empty() ? nullptr : rules.row_for(e.name);
    if (e.conditional) {
      v.input = e;
      v.outcome = Outcome::kConditional;
      v.rule = "conditional";
      v.alternatives_text = classifier.alternatives(e);
      v.detail = v.alternatives_text;
      v.todo =
          "Decide the value this job runs with and set it without a branch (or translate "
          "inside the job with --from-env); nothing is written for it.";
    } else if (row && row_done.count(row->id())) {
      v = t.vars[row_done[row->id()]];  // the row ran once for all its variables
      v.input = e;
      v.also_at.clear();
    } else {
      v = classifier.classify(e, certain);
      if (row && v.rule == row->id()) row_done[row->id()] = t.vars.size();
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
