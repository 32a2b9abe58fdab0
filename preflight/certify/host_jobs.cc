#include "preflight/certify/host_jobs.h"
#include "preflight/certify/message.h"

#include <nlohmann/json.hpp>
#include <set>

#include "preflight/certify/phases.h"
#include "preflight/node_sources.h"
#include "preflight/runner.h"
#include "preflight/snapshot_capture.h"
#include "probes/node_probes.h"
#include "probes/storage/storage_probes.h"

extern char** environ;

namespace hn::preflight::certify {

namespace {

using nlohmann::json;

milliseconds left(Deadline d) {
  return std::max(milliseconds(1), std::chrono::ceil<milliseconds>(d - Clock::now()));
}

std::shared_ptr<probes::NodeContext> live_context(std::shared_ptr<const formats::Profile> profile,
                                                  const std::string& node) {
  auto ctx = std::make_shared<probes::NodeContext>();
  ctx->profile = std::move(profile);
  ctx->sources = open_live_sources();
  ctx->node = node.empty() ? nullptr : ctx->profile->find_node(node);
  ctx->env = probes::collect_comm_env(environ, nullptr);
  return ctx;
}

bool is_jitter(const probes::Probe& p) {
  return p.name.rfind("storage.jitter ", 0) == 0;
}

std::string node_job(const CertifyOptions& o, const std::string& arg, Deadline deadline) {
  const std::string node = parse_message(arg).value("node", "");
  json out = json::object();
  // The snapshot first, while this process still has one thread (the
  // runner's in-process probes start threads).
  const auto capture_deadline = Clock::now() + (deadline - Clock::now()) / 4;
  SnapshotCapture cap = capture_live_snapshot(capture_deadline);
  if (cap.run.end == drivers::SupervisedRun::End::kCompleted)
    out["snapshot"] = cap.yaml;
  else
    out["snapshot_error"] =
        cap.run.end == drivers::SupervisedRun::End::kTimedOut
            ? "the capture did not finish in time; it was " + cap.run.last_step
            : "the capture failed while " + cap.run.last_step + ": " + cap.run.failure;
  auto ctx = live_context(o.profile, node);
  std::vector<probes::Probe> probes;
  for (auto& p : probes::node_probes(ctx))
    if (!is_jitter(p)) probes.push_back(std::move(p));
  out["findings"] = findings_to_json(run_probes(probes, RunOptions{left(deadline)}));
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string storage_job(const CertifyOptions& o, const std::string& arg, Deadline deadline) {
  json a = parse_message(arg);
  std::set<std::string> skip;
  for (const auto& p : a.value("skip", json::array())) skip.insert(p.get<std::string>());
  auto profile = std::make_shared<formats::Profile>(*o.profile);
  profile->storage.jitter.with_histograms = true;
  auto ctx = live_context(profile, a.value("node", ""));
  ctx->storage_jitter = true;
  std::vector<probes::Probe> probes;
  for (auto& p : probes::storage::storage_probes(ctx))
    if (is_jitter(p) && !skip.count(p.name.substr(std::string("storage.jitter ").size())))
      probes.push_back(std::move(p));
  json out = json::object();
  out["findings"] = findings_to_json(run_probes(probes, RunOptions{left(deadline)}));
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::map<std::string, HostAgent::Job> host_jobs(const CertifyOptions& options) {
  const CertifyOptions* o = &options;
  return {
      {"node", [o](const std::string& arg, Deadline d) { return node_job(*o, arg, d); }},
      {"storage", [o](const std::string& arg, Deadline d) { return storage_job(*o, arg, d); }},
  };
}

}  // namespace hn::preflight::certify
