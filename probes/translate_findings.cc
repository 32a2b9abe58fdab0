#include "probes/translate_findings.h"

#include <nlohmann/json.hpp>

#include "reports/catalog.h"

namespace hn::probes {

namespace tr = compat::translate;
using reports::Status;

namespace {

std::string outputs_text(const std::vector<std::pair<std::string, std::string>>& outs) {
  std::string s;
  for (const auto& [k, v] : outs) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s;
}

reports::Finding var_finding(const tr::Translation& t, const tr::VarResult& v) {
  const bool check = t.from.empty();
  reports::Params p = {
      {"var", v.input.name},
      {"value", v.input.value},
      {"where", v.input.where()},
      {"result", !v.outputs.empty() ? outputs_text(v.outputs)
                 : v.input.dynamic  ? "(set at run time)"
                                    : "(not written)"},
      {"detail", v.detail},
      {"todo", v.todo},
      {"note", v.detail.empty() ? "" : " (" + v.detail + ")"},
      {"library", t.to},
      {"outcome", tr::to_string(v.outcome)},
  };
  if (!v.rule.empty()) p["rule"] = v.rule;
  if (!v.table.empty()) p["table"] = v.table;
  if (!v.target.empty()) p["target"] = v.target;
  if (!v.range.empty()) p["range"] = v.range;
  if (!v.source.empty()) p["source"] = v.source;
  if (!v.also_at.empty()) {
    std::string s;
    for (const auto& a : v.also_at) s += (s.empty() ? "" : ", ") + a;
    p["also_at"] = s;
  }
  const std::string& e = v.input.name;
  switch (v.outcome) {
    case tr::Outcome::kTranslated:
      return reports::make_finding(check ? "COMM-PARAM-VALID" : "COMM-PARAM-TRANSLATED",
                                   Status::kPass, e, p);
    case tr::Outcome::kConverted:
      return reports::make_finding("COMM-PARAM-CONVERTED", Status::kPass, e, p);
    case tr::Outcome::kClamped:
      return reports::make_finding("COMM-PARAM-CLAMPED", Status::kWarn, e, p);
    case tr::Outcome::kInvalid:
      return reports::make_finding("COMM-PARAM-INVALID", Status::kFail, e, p);
    case tr::Outcome::kNeedsReview:
      return reports::make_finding("COMM-PARAM-REVIEW", Status::kFail, e, p);
    case tr::Outcome::kDropped:
      return reports::make_finding("COMM-PARAM-DROPPED", v.risk ? Status::kWarn : Status::kPass, e,
                                   p);
    case tr::Outcome::kConditional:
      return reports::make_finding("COMM-PARAM-CONDITIONAL", Status::kWarn, e, p);
    case tr::Outcome::kUnknown:
      break;
  }
  return reports::make_finding("COMM-PARAM-UNKNOWN", Status::kWarn, e, p);
}

const char* cross_code(const tr::CrossResult& c) {
  if (c.kind == "greater") return "COMM-PARAM-ORDER";
  if (c.kind == "equals-profile")
    return c.state == tr::CrossResult::kFixed ? "COMM-PARAM-PFC-SET" : "COMM-PARAM-PFC";
  if (c.kind == "ports") return "COMM-PARAM-PORTS";
  if (c.kind == "requires") return "COMM-PARAM-REQUIRES";
  if (c.kind == "exclusive") return "COMM-PARAM-EXCLUSIVE";
  return "COMM-PARAM-LIMIT";
}

reports::Finding cross_finding(const tr::CrossResult& c) {
  reports::Params p = {{"rule", c.id},   {"values", c.values}, {"detail", c.detail},
                       {"todo", c.todo}, {"source", c.source}, {"severity", c.severity}};
  Status s = Status::kPass;
  switch (c.state) {
    case tr::CrossResult::kOk:
      break;
    case tr::CrossResult::kFixed:
      p["written"] = outputs_text(c.outputs);
      p["result"] = c.outputs.empty() ? "" : c.outputs.front().second;
      break;
    case tr::CrossResult::kViolated:
      s = c.severity == "warn" ? Status::kWarn : Status::kFail;
      break;
    case tr::CrossResult::kNotChecked:
      s = Status::kSkip;
      p["reason"] = c.detail;
      break;
  }
  return reports::make_finding(cross_code(c), s, c.id, p);
}

}  // namespace

namespace {

reports::Finding note_finding(const tr::InputNote& n) {
  reports::Params p = {{"var", n.name},
                       {"where", n.where()},
                       {"text", n.text},
                       {"why", n.why},
                       {"subject", n.name.empty() ? "settings" : n.name}};
  const std::string entity = n.name.empty() ? n.where() : n.name;
  switch (n.kind) {
    case tr::InputNote::kNotExported:
      return reports::make_finding("COMM-PARAM-NOT-EXPORTED", Status::kWarn, entity, p);
    case tr::InputNote::kUnset:
      return reports::make_finding("COMM-PARAM-UNSET", Status::kPass, entity, p);
    case tr::InputNote::kNotFollowed:
      return reports::make_finding("COMM-INPUT-NOT-FOLLOWED", Status::kWarn, entity, p);
    case tr::InputNote::kUnread:
      break;
  }
  return reports::make_finding("COMM-INPUT-UNREAD", Status::kFail, entity, p);
}

}  // namespace

std::vector<reports::Finding> translation_findings(const tr::Translation& t) {
  std::vector<reports::Finding> out;
  for (const auto& f : t.empty_files)
    out.push_back(reports::make_finding("COMM-INPUT-EMPTY", Status::kFail, f, {{"file", f}}));
  for (const auto& n : t.notes) out.push_back(note_finding(n));
  for (const auto& v : t.vars) out.push_back(var_finding(t, v));
  for (const auto& c : t.cross) out.push_back(cross_finding(c));
  if (!t.others.empty()) {
    std::string names;
    for (const auto& n : t.others) names += (names.empty() ? "" : ", ") + n;
    out.push_back(
        reports::make_finding("COMM-PARAM-OTHERS", Status::kPass, "other variables",
                              {{"count", std::to_string(t.others.size())}, {"names", names}}));
  }
  return out;
}

std::string translation_json(const tr::Translation& t) {
  nlohmann::ordered_json j;
  j["from"] = t.from.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.from);
  j["to"] = t.to;
  j["tables"] = t.tables;
  j["env"] = nlohmann::ordered_json::array();
  for (const auto& l : t.env)
    j["env"].push_back({{"name", l.name}, {"value", l.value}, {"origin", l.origin}});
  j["variables"] = nlohmann::ordered_json::array();
  for (const auto& v : t.vars) {
    nlohmann::ordered_json o = {{"name", v.input.name},     {"value", v.input.value},
                                {"where", v.input.where()}, {"outcome", tr::to_string(v.outcome)},
                                {"rule", v.rule},           {"source", v.source}};
    o["outputs"] = nlohmann::ordered_json::object();
    for (const auto& [k, val] : v.outputs) o["outputs"][k] = val;
    j["variables"].push_back(std::move(o));
  }
  // Values come from the job's files and may hold bytes that are not UTF-8
  // (a script's, when env files are checked at read time): U+FFFD for those.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hn::probes
