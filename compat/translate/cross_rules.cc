#include "compat/translate/cross_rules.h"

#include <cmath>
#include <optional>

#include "compat/translate/converters.h"

namespace hn::compat::translate {

namespace {

struct Val {
  std::string name;
  std::optional<std::string> text;
  bool set = false;
  std::string how;  // the process-group timeout: where it came from
  std::string describe() const {
    if (!text) return name + " (unset, no default)";
    if (!how.empty()) return name + " " + *text + " s (" + how + ")";
    return name + "=" + *text + (set ? "" : " (default)");
  }
};

class Evaluator {
 public:
  Evaluator(const RuleSet& rules, std::map<std::string, std::string>& env, const Context& ctx)
      : rules_(rules), env_(env), ctx_(ctx) {}

  Val lookup(const std::string& name) const {
    Val v{name, std::nullopt, false, ""};
    if (name == "@pg_timeout") {
      v.name = "the process-group timeout";
      if (ctx_.pg_timeout_s) {
        v.text = fmt(*ctx_.pg_timeout_s);
        v.set = true;
        v.how = ctx_.pg_timeout_source.empty() ? "--pg-timeout" : ctx_.pg_timeout_source;
      } else if (rules_.pg_timeout_default_s) {
        double d = *rules_.pg_timeout_default_s;
        v.how = "default";
        if (!rules_.pg_timeout_plus_var.empty()) {
          // torch_npu: a timeout left at its default becomes
          // HCCL_EXEC_TIMEOUT + 1800 s (0, "never", stays never).
          Val plus = lookup(rules_.pg_timeout_plus_var);
          auto p = plus.text ? parse_int(*plus.text) : std::nullopt;
          if (p && *p == 0) {
            v.text = "9223372036854775807";
            v.how = "default: never, as " + plus.describe() + " means never";
            return v;
          }
          if (p) d += static_cast<double>(*p);
          v.how = "default: " + fmt(*rules_.pg_timeout_default_s) + " s + " + plus.describe();
        }
        v.text = fmt(d);
      }
      return v;
    }
    if (auto it = env_.find(name); it != env_.end()) {
      v.text = it->second;
      v.set = true;
    } else if (const VarSpec* s = rules_.target(name); s && !s->default_value.empty()) {
      v.text = s->default_value;
    }
    return v;
  }

  static std::string fmt(double d) {
    if (std::floor(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
    return std::to_string(d);
  }

  std::optional<CrossResult> run(const CrossRule& rule) {
    CrossResult r;
    r.id = rule.id;
    r.kind = rule.kind;
    r.severity = rule.severity;
    r.source = rule.source;
    std::vector<Val> vals;
    for (const auto& m : rule.members) vals.push_back(lookup(m.var));
    bool any_set = false;
    for (const auto& v : vals) any_set = any_set || v.set;
    if (!any_set && !rule.always) return std::nullopt;
    if (rule.when_set && !vals[0].set) return std::nullopt;
    // Nothing to compare an unset variable with: stay silent rather than SKIP every run.
    if (rule.kind == "equals-profile" && !any_set && !ctx_.pfc_priority) return std::nullopt;
    for (const auto& v : vals) r.values += (r.values.empty() ? "" : ", ") + v.describe();
    params_ = {{"values", r.values}};
    advice_todo_.clear();
    for (size_t i = 0; i < vals.size(); ++i) {
      params_.push_back({"var" + std::to_string(i), rule.members[i].var});
      params_.push_back({"value" + std::to_string(i), vals[i].text.value_or("")});
    }
    // Only documented defaults involved: the platform's own configuration, not
    // this input, is at fault, so it is advice rather than a blocker.
    if (!any_set) r.severity = "warn";
    if (rule.kind == "greater")
      greater(rule, vals, r);
    else if (rule.kind == "equals-profile")
      equals_profile(rule, vals, r);
    else if (rule.kind == "ports")
      ports(rule, r);
    else if (rule.kind == "requires")
      requires_rule(rule, vals, r);
    else if (rule.kind == "exclusive")
      exclusive(rule, vals, r);
    else if (rule.kind == "product-max")
      product_max(rule, vals, r);
    else if (rule.kind == "max-when")
      max_when(rule, vals, r);
    if (r.state == CrossResult::kViolated || r.state == CrossResult::kFixed) {
      if (r.detail.empty()) r.detail = render_rule_text(rule.why, params_);
      r.todo = render_rule_text(advice_todo_.empty() ? rule.todo : advice_todo_, params_);
    }
    if (r.state == CrossResult::kOk) r.detail = render_rule_text(rule.why, params_);
    return r;
  }

 private:
  static std::optional<double> num(const Val& v) {
    if (!v.text) return std::nullopt;
    if (auto i = parse_int(*v.text)) return static_cast<double>(*i);
    try {
      size_t used = 0;
      double d = std::stod(*v.text, &used);
      if (used == v.text->size()) return d;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }

  void not_checked(CrossResult& r, const std::string& why) {
    r.state = CrossResult::kNotChecked;
    r.detail = why;
  }

  void greater(const CrossRule& rule, const std::vector<Val>& v, CrossResult& r) {
    auto l = num(v[0]), rt = num(v[1]);
    if (!l || !rt) return not_checked(r, "no value for " + (l ? v[1].name : v[0].name));
    bool l_inf = rule.zero_is_infinite && *l == 0, r_inf = rule.zero_is_infinite && *rt == 0;
    const double bound = *rt + rule.offset;
    bool ok = l_inf || (!r_inf && (*l > bound || (rule.or_equal && *l == bound)));
    double need = rule.or_equal ? std::ceil(bound) : std::floor(bound) + 1;
    if (ok && !l_inf && rule.advice_offset > 0 && !(*l > bound + rule.advice_offset)) {
      // Passes, but inside the margin where only a diagnosis is lost.
      params_.push_back({"need", fmt(std::floor(bound + rule.advice_offset) + 1)});
      params_.push_back({"offset", fmt(rule.offset + rule.advice_offset)});
      r.state = CrossResult::kViolated;
      r.severity = "warn";
      r.detail = render_rule_text(rule.advice_why, params_);
      advice_todo_ = rule.advice_todo;
      return;
    }
    params_.push_back({"need", r_inf ? "0 (never)" : fmt(need)});
    params_.push_back({"offset", fmt(rule.offset)});
    r.state = ok ? CrossResult::kOk : CrossResult::kViolated;
  }

  void equals_profile(const CrossRule& rule, const std::vector<Val>& v, CrossResult& r) {
    if (rule.profile_key != "pfc_priority" || !ctx_.pfc_priority)
      return not_checked(r, "the cluster profile gives no comm." + rule.profile_key +
                                " to compare " + v[0].name + " with");
    std::string want = std::to_string(*ctx_.pfc_priority);
    params_.push_back({"profile_value", want});
    if (v[0].text == want) {
      r.state = CrossResult::kOk;
      return;
    }
    if (!v[0].set && rule.fix) {
      r.state = CrossResult::kFixed;
      r.outputs = {{rule.members[0].var, want}};
      env_[rule.members[0].var] = want;
      return;
    }
    r.state = CrossResult::kViolated;
  }

  void ports(const CrossRule& rule, CrossResult& r) {
    struct Use {
      std::string var;
      std::vector<PortRange> ranges;
      bool set = false;
    };
    std::vector<Use> uses;
    r.values.clear();
    for (const auto& m : rule.members) {
      Val v = lookup(m.var);
      if (!v.text || (!v.set && !m.unless.empty() && env_.count(m.unless))) continue;
      Use u{m.var, {}, v.set};
      if (auto n = parse_int(*v.text)) {
        u.ranges.push_back({*n, *n + m.count - 1});
      } else {
        PortSpec ps = parse_port_spec(*v.text);
        if (ps.is_auto) continue;
        u.ranges = ps.ranges;
      }
      r.values +=
          (r.values.empty() ? "" : ", ") + v.describe() + " -> " + format_port_ranges(u.ranges);
      uses.push_back(std::move(u));
    }
    params_[0].second = r.values;
    if (uses.empty()) return;
    if (!ctx_.ephemeral)
      return not_checked(r, "the local port range is unknown: " + ctx_.ports_source);
    std::vector<std::string> problems;
    std::vector<PortRange> clash;
    bool user_set = false;  // a clash involving a port the input set (not only a default)
    for (const auto& u : uses)
      for (const auto& pr : u.ranges) {
        auto o = ephemeral_overlap(pr, *ctx_.ephemeral, ctx_.reserved);
        if (o.empty()) continue;
        clash.insert(clash.end(), o.begin(), o.end());
        user_set = user_set || u.set;
        problems.push_back(u.var + " ports " + format_port_ranges(o) +
                           " lie in ip_local_port_range " + format_port_ranges({*ctx_.ephemeral}) +
                           " and are not reserved");
      }
    for (size_t i = 0; i < uses.size(); ++i)
      for (size_t j = i + 1; j < uses.size(); ++j)
        for (const auto& a : uses[i].ranges)
          for (const auto& b : uses[j].ranges)
            if (a.lo <= b.hi && b.lo <= a.hi) {
              user_set = user_set || uses[i].set || uses[j].set;
              problems.push_back(
                  uses[i].var + " and " + uses[j].var + " share ports " +
                  format_port_ranges({{std::max(a.lo, b.lo), std::min(a.hi, b.hi)}}));
            }
    params_.push_back({"ports", format_port_ranges(clash)});
    params_.push_back(
        {"ephemeral", format_port_ranges({*ctx_.ephemeral}) + " (" + ctx_.ports_source + ")"});
    if (problems.empty()) {
      r.state = CrossResult::kOk;
      return;
    }
    r.state = CrossResult::kViolated;
    if (!user_set) r.severity = "warn";  // only defaults clash: the platform's setup, not the input
    std::string d;
    for (const auto& p : problems) d += (d.empty() ? "" : "; ") + p;
    r.detail = d + "; " + render_rule_text(rule.why, params_);
  }

  void requires_rule(const CrossRule& rule, const std::vector<Val>& v, CrossResult& r) {
    bool ok = !v[0].set || (v[1].set && (rule.value.empty() || v[1].text == rule.value));
    r.state = ok ? CrossResult::kOk : CrossResult::kViolated;
  }

  void exclusive(const CrossRule& rule, const std::vector<Val>& v, CrossResult& r) {
    bool both = rule.value.empty() ? v[0].set && v[1].set
                                   : v[0].text == rule.value && v[1].text == rule.value;
    r.state = both ? CrossResult::kViolated : CrossResult::kOk;
  }

  void product_max(const CrossRule& rule, const std::vector<Val>& v, CrossResult& r) {
    auto a = num(v[0]), b = num(v[1]);
    if (!a || !b) return not_checked(r, "no value for " + (a ? v[1].name : v[0].name));
    params_.push_back({"product", fmt(*a * *b)});
    params_.push_back({"max", std::to_string(rule.max)});
    r.state = *a * *b > static_cast<double>(rule.max) ? CrossResult::kViolated : CrossResult::kOk;
  }

  void max_when(const CrossRule& rule, const std::vector<Val>& v, CrossResult& r) {
    bool on = v[0].text && to_upper(*v[0].text) == to_upper(rule.value);
    auto b = num(v[1]);
    params_.push_back({"max", std::to_string(rule.max)});
    r.state = on && v[1].set && b && *b > static_cast<double>(rule.max) ? CrossResult::kViolated
                                                                        : CrossResult::kOk;
  }

  const RuleSet& rules_;
  std::map<std::string, std::string>& env_;
  const Context& ctx_;
  std::vector<std::pair<std::string, std::string>> params_;
  std::string advice_todo_;  // set by greater() when only its advice margin is missed
};

}  // namespace

std::vector<CrossResult> evaluate_cross(const RuleSet& rules,
                                        std::map<std::string, std::string>& env,
                                        const Context& ctx) {
  Evaluator ev(rules, env, ctx);
  std::vector<CrossResult> out;
  for (const auto& rule : rules.cross)
    if (auto r = ev.run(rule)) out.push_back(std::move(*r));
  return out;
}

}  // namespace hn::compat::translate
