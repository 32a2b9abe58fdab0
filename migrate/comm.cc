// Concern 2, communication parameters: what `hnprecheck translate` says about
// the job's settings (one finding per variable and per cross-variable rule),
// one finding that says whether anything must change and how to apply it,
// and the link-setup wait before and after the translation. The port rule's
// findings belong to the network concern.
#include <cmath>
#include <cstdio>

#include "compat/input_error.h"
#include "compat/translate/link_env.h"
#include "compat/translate/rules.h"
#include "migrate/artifacts.h"
#include "migrate/concerns.h"
#include "probes/translate_context.h"
#include "probes/translate_findings.h"
#include "reports/catalog.h"

namespace hn::migrate {

namespace tr = compat::translate;
using reports::Status;

CommTranslation translate_job(const Job& job) {
  tr::RuleBook book = tr::RuleBook::load();
  const bool check = job.from.value == job.to.value;
  tr::RuleSet rules =
      check ? book.for_check(job.to.value) : book.for_translation(job.from.value, job.to.value);
  probes::TranslateContextOptions o;
  o.platform = job.platform.value;
  if (job.plane) o.plane = job.plane->value;
  if (job.pg_timeout_s && !job.pg_timeout_s->dynamic) {
    const Sourced& pg = *job.pg_timeout_s;
    o.pg_timeout_s = std::stod(pg.value);
    // The rule's message names where the value came from, as the report does.
    if (pg.origin == "launch")
      o.pg_timeout_source = "--distributed-timeout-minutes at " + pg.where;
    else if (pg.origin == "manifest")
      o.pg_timeout_source = "pg_timeout_s at " + pg.where;
    else if (pg.origin == "default")
      o.pg_timeout_source = pg.where;
  }
  if (job.local_port_range) o.local_port_range = job.local_port_range->value;
  if (job.reserved_ports) o.reserved_ports = job.reserved_ports->value;
  tr::Context ctx = probes::make_translate_context(&job.profile, o);
  CommTranslation out;
  out.translation = tr::translate(job.env, rules, book, ctx);
  out.header = "hnprecheck migrate " + job.name + ": " +
               (check ? "--check --to " + job.to.value
                      : "--from " + job.from.value + " --to " + job.to.value);
  return out;
}

namespace {

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

// The environment a program would see: the last value of each name; values
// only known at run time are left out.
std::map<std::string, std::string> env_map(const std::vector<tr::EnvEntry>& entries) {
  std::map<std::string, std::string> env;
  for (const auto& e : entries)
    if (e.dynamic)
      env.erase(e.name);
    else
      env[e.name] = e.value;
  return env;
}

std::string where_of(const std::vector<tr::EnvEntry>& entries, const std::string& name) {
  std::string w;
  for (const auto& e : entries)
    if (e.name == name) w = e.where();
  return w;
}

struct Wait {
  double seconds = 0;
  std::string from;
};

// The link-setup budget as the link-setup contract (compat/translate/link_env.h)
// defines it, or the library's documented default when nothing is set.
std::optional<Wait> link_wait(const std::string& library,
                              const std::map<std::string, std::string>& env,
                              const std::vector<tr::EnvEntry>& entries) {
  tr::LinkEnv l;
  try {
    l = tr::link_env_from(env);
  } catch (const compat::InputError&) {
    return std::nullopt;  // a malformed value: the translation findings say so
  }
  const bool hccl = library == "hccl";
  if (hccl && l.connect_timeout_s) {
    std::string w = where_of(entries, "HCCL_CONNECT_TIMEOUT");
    return Wait{*l.connect_timeout_s + tr::LinkEnv::kHcclExtraWaitS,
                "HCCL_CONNECT_TIMEOUT=" + env.at("HCCL_CONNECT_TIMEOUT") + " + 20 s" +
                    (w.empty() ? "" : ", " + w)};
  }
  if (hccl) return Wait{120 + tr::LinkEnv::kHcclExtraWaitS, "HCCL's default 120 s + 20 s"};
  if (library != "nccl" && library != "torch" && library != "rccl") return std::nullopt;
  if (l.retry_count) {
    // NCCL's own schedule only: an HCCL variable in the same job is not NCCL's.
    const double n = *l.retry_count, sleep_s = l.retry_sleep_ms.value_or(100) / 1000.0;
    std::string w = where_of(entries, "NCCL_SOCKET_RETRY_CNT");
    return Wait{n * (n + 1) / 2 * sleep_s,
                "NCCL_SOCKET_RETRY_CNT=" + std::to_string(*l.retry_count) + " x " +
                    std::to_string(l.retry_sleep_ms.value_or(100)) + " ms linear back-off" +
                    (w.empty() ? "" : ", " + w)};
  }
  // NCCL 2.24+: 34 retries, 100 ms linear back-off (docs/comm-sources.md A1, N1).
  return Wait{34.0 * 35 / 2 * 0.1, "NCCL's default 34 retries x 100 ms linear back-off"};
}

std::string inputs_text(const Job& job) {
  std::vector<std::string> v;
  for (const auto& e : job.env_files) v.push_back(e.value);
  if (job.script) v.push_back(job.script->value);
  if (job.k8s) v.push_back(job.k8s->value);
  return tr::join(v, ", ");
}

}  // namespace

Concern check_comm(const Job& job, const CommTranslation& ct, const ArtifactNames& artifacts) {
  Concern c("comm", "Comm parameters");
  const tr::Translation& t = ct.translation;
  if (!job.script && !job.k8s && job.env_files.empty()) {
    c.add(reports::make_finding("MIG-COMM-NO-LAUNCH", Status::kWarn, "launch material",
                                {{"inputs", "-"}}));
    c.set_summary("not checked: the job names no launch material");
    return c;
  }
  for (auto& f : probes::translation_findings(t)) {
    if (f.code == "COMM-PARAM-PORTS") continue;  // network policy
    Item& item = c.add(std::move(f));
    item.where = item.finding.evidence.count("where") ? item.finding.evidence.at("where") : "";
  }

  int count = 0, changed = 0, review = 0;
  std::map<std::string, int> by_outcome;
  for (const auto& v : t.vars) {
    ++count;
    if (unchanged_setting(v)) continue;
    ++changed;
    ++by_outcome[v.outcome == tr::Outcome::kTranslated ? "renamed" : tr::to_string(v.outcome)];
    review += v.outcome == tr::Outcome::kNeedsReview || v.outcome == tr::Outcome::kInvalid;
  }
  std::string detail;
  for (const auto& [k, n] : by_outcome)
    detail += (detail.empty() ? "" : ", ") + std::to_string(n) + " " + k;
  std::string apply;
  if (!artifacts.env_file.empty() || !artifacts.script.empty()) {
    apply = "Use the translated settings:";
    if (!artifacts.script.empty())
      apply += " launch " + artifacts.script + " (the script with the changes applied)";
    if (!artifacts.script.empty() && !artifacts.env_file.empty()) apply += ", or";
    if (!artifacts.env_file.empty())
      apply += " source " + artifacts.env_file + " in the job (set -a; . " + artifacts.env_file +
               "; set +a) and remove the settings it replaces";
    apply += "; review the items above that are not PASS first.";
  } else {
    apply =
        "Run migrate again with --out-dir DIR to write the translated env file and the "
        "migrated script, then use them.";
  }
  c.add(reports::make_finding("MIG-COMM-APPLY", changed > 0 ? Status::kWarn : Status::kPass,
                              "environment",
                              {{"count", std::to_string(count)},
                               {"changed", std::to_string(changed)},
                               {"inputs", inputs_text(job)},
                               {"to", t.to},
                               {"detail", detail},
                               {"lines", std::to_string(t.env.size())},
                               {"apply", apply}}),
        false, inputs_text(job));

  // Link setup before (the source library's reading of the job's settings)
  // and after (the target's reading of the translated ones).
  std::map<std::string, std::string> after_env;
  for (const auto& l : t.env) after_env[l.name] = l.value;
  auto before = link_wait(t.from.empty() ? t.to : t.from, env_map(job.env), job.env);
  auto after = link_wait(t.to, after_env, job.env);
  if (before && after) {
    const bool shorter = after->seconds + 1e-9 < before->seconds;
    c.add(reports::make_finding(
        "MIG-COMM-LINK-SETUP", shorter ? Status::kWarn : Status::kPass, "link setup",
        {{"before", seconds(before->seconds)},
         {"before_from", before->from},
         {"after", seconds(after->seconds)},
         {"after_from", after->from},
         {"to", t.to},
         {"need_s", std::to_string(static_cast<long long>(
                        std::ceil(before->seconds - tr::LinkEnv::kHcclExtraWaitS)))}}));
  }

  std::string summary = count == 0 ? "the launch material sets no communication variable"
                        : changed == 0
                            ? std::to_string(count) + " setting(s) hold as they are on " + t.to
                            : std::to_string(changed) + " of " + std::to_string(count) +
                                  " setting(s) change for " + t.to + " (" + detail + ")";
  if (review > 0) summary += "; " + std::to_string(review) + " need review";
  c.set_summary(summary);
  return c;
}

}  // namespace hn::migrate
