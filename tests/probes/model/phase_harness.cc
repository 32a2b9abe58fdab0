#include "tests/probes/model/phase_harness.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reports/json_report.h"
#include "stack/l1_model/trainer.h"
#include "tests/stack/l3_comm/rank_harness.h"
#include "tests/support/temp_dir.h"

namespace hn::test {

std::vector<reports::Finding> PhaseRun::with_code(const std::string& code) const {
  std::vector<reports::Finding> out;
  for (const auto& r : ranks)
    for (const auto& f : r.findings)
      if (f.code == code) out.push_back(f);
  return out;
}

std::string PhaseRun::summary() const {
  std::string s = "exit " + std::to_string(launch.exit_code) + " " + launch.first_failure + "\n";
  for (std::size_t r = 0; r < ranks.size(); ++r)
    for (const auto& f : ranks[r].findings)
      s += "rank " + std::to_string(r) + ": " + f.code + " " +
           std::string(reports::to_string(f.status)) + " " + f.message + "\n";
  return s;
}

PhaseRun run_phase(int n, const probes::model::ModelPhaseOptions& options,
                   const PhaseSetup& setup) {
  TempDir dir;
  RankSetup rs;
  rs.transport = setup.transport;
  rs.timeout = setup.comm_timeout;
  const auto start = std::chrono::steady_clock::now();
  PhaseRun run;
  run.launch = run_ranks(n, rs, [&](stack::comm::Communicator& world) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<long long>(setup.deadline_s * 1000));
    auto r = probes::model::run_model_phase(world, options, deadline);
    nlohmann::json j;
    j["losses"] = r.losses;
    j["findings"] = nlohmann::json::array();
    for (const auto& f : r.findings) j["findings"].push_back(reports::finding_to_json(f));
    j["table"]["layout"] = r.table.layout;
    j["table"]["total_ms"] = r.table.total_ms;
    j["table"]["steps"] = r.table.steps;
    for (const auto& row : r.table.rows)
      j["table"]["rows"].push_back({row.layer, row.what, row.ms, row.bytes, row.calls});
    std::ofstream(dir.path() + "/rank" + std::to_string(world.rank()) + ".json") << j.dump();
  });
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int r = 0; r < n; ++r) {
    RankOutcome o;
    std::ifstream in(dir.path() + "/rank" + std::to_string(r) + ".json");
    if (in) {
      auto j = nlohmann::json::parse(in);
      o.returned = true;
      o.losses = j["losses"].get<std::vector<double>>();
      for (const auto& f : j["findings"]) o.findings.push_back(reports::finding_from_json(f));
      o.table.layout = j["table"]["layout"].get<std::string>();
      o.table.total_ms = j["table"]["total_ms"].get<double>();
      o.table.steps = j["table"]["steps"].get<int>();
      for (const auto& row : j["table"].value("rows", nlohmann::json::array()))
        o.table.rows.push_back({row[0].get<std::string>(), row[1].get<std::string>(),
                                row[2].get<double>(), row[3].get<double>(), row[4].get<double>()});
    }
    run.ranks.push_back(std::move(o));
  }
  return run;
}

std::string model_step_binary() {
  const std::string b = HN_BINARY;
  return b.substr(0, b.rfind('/') + 1) + "model_step";
}

std::vector<double> single_rank_losses(const formats::ModelSpec& spec, const compat::OpMatrix& m) {
  stack::comm::CommOptions solo;
  solo.rank = 0;
  solo.world = 1;
  stack::comm::Communicator one(solo);
  stack::model::TrainerOptions o;
  o.model = spec.size;
  o.optimizer = spec.optimizer;
  o.seed = spec.seed;
  o.matrix = &m;
  stack::model::Trainer t(one, o);
  std::vector<double> losses;
  for (int s = 0; s < spec.steps; ++s) losses.push_back(t.step().loss);
  return losses;
}

}  // namespace hn::test
