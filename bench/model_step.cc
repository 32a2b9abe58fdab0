// model_step: the model phase (the bundled model trained with a parallel
// layout, probes/model/model_phase.h) for one or more layouts, with the
// time per step split by layer and the checkpoint throughput.
//
//   build/bin/model_step --local-ranks [--layouts "dp=2 tp=2 pp=2 ..."] [options]
//   mpirun -np 4 build/bin/model_step --layout tp=2,dp=2 [options]
//   srun -n 4 build/bin/model_step --layout tp=2,dp=2 [options]
//
// With --local-ranks every layout runs on its own world of tp*pp*dp ranks
// forked here (the L5 local launcher); without it the ranks come from the
// launcher that started us (mpirun, srun, torchrun variables) and one layout
// runs (--rendezvous HOST:PORT as for `hnprecheck bench`). Options: --steps N
// (default 20), --transport shm|tcp|auto,
// --checkpoint-dir DIR, --fuse (checkpoint on a faultfs mount; root and
// /dev/fuse), --size key=value,... (model.size keys), --backend NAME,
// --no-reference (skip the single-rank run), --json PATH, --repeat R (each
// layout R times, interleaved; the table shows the median step).
//
// Rank 0 of each run prints its step-time table and findings; then a summary
// table over the layouts and one JSON document. Asserts nothing: the
// findings say what passed.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "probes/model/model_options.h"
#include "reports/json_report.h"
#include "reports/step_table.h"
#include "stack/l3_comm/bootstrap.h"
#include "stack/l5_sched/local_launcher.h"
#ifdef HN_HAVE_FAULTFS
#include "tests/support/faultfs/faultfs_mount.h"
#endif

namespace model = hn::probes::model;
using nlohmann::json;

namespace {

struct Options {
  bool local = false;
  std::vector<std::string> layouts;
  std::string layout;
  int steps = 20;
  int repeat = 1;
  std::string transport = "auto";
  std::string checkpoint_dir;
  bool fuse = false;
  std::string size;
  std::string backend = "reference-cpu";
  bool reference = true;
  std::string json_path;
  std::string rendezvous;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(
      stderr,
      "model_step: %s\nusage: model_step [--local-ranks] [--layouts \"L ...\"] [--layout L] "
      "[--steps N] [--repeat R] [--transport shm|tcp|auto] [--checkpoint-dir DIR] [--fuse] "
      "[--size key=v,...] [--backend NAME] [--no-reference] [--rendezvous H:P] [--json PATH]\n",
      why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--local-ranks")
      o.local = true;
    else if (a == "--layouts") {
      std::istringstream in(value());
      for (std::string l; in >> l;) o.layouts.push_back(l);
    } else if (a == "--layout")
      o.layout = value();
    else if (a == "--steps")
      o.steps = std::stoi(value());
    else if (a == "--repeat")
      o.repeat = std::stoi(value());
    else if (a == "--transport")
      o.transport = value();
    else if (a == "--checkpoint-dir")
      o.checkpoint_dir = value();
    else if (a == "--fuse")
      o.fuse = true;
    else if (a == "--size")
      o.size = value();
    else if (a == "--backend")
      o.backend = value();
    else if (a == "--no-reference")
      o.reference = false;
    else if (a == "--json")
      o.json_path = value();
    else if (a == "--rendezvous")
      o.rendezvous = value();
    else
      usage("unknown option " + a);
  }
  if (!o.layout.empty()) o.layouts = {o.layout};
  if (o.layouts.empty())
    o.layouts =
        o.local ? std::vector<std::string>{"dp=2",      "tp=2",      "pp=2",      "dp=2,ep=2",
                                           "tp=2,pp=2", "tp=2,dp=2", "dp=4,ep=2", "tp=2,pp=2,dp=2"}
                : std::vector<std::string>{""};
  if (!o.local && o.layouts.size() > 1) usage("under a launcher give one --layout");
  return o;
}

// model.size keys as the profile spells them.
void apply_size(hn::formats::ModelSpec& spec, const std::string& text) {
  std::istringstream in(text);
  for (std::string kv; std::getline(in, kv, ',');) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) usage("--size takes key=value pairs, got " + kv);
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    auto& s = spec.size;
    std::map<std::string, int*> ints = {{"vocab", &s.vocab},    {"hidden", &s.hidden},
                                        {"heads", &s.heads},    {"ffn", &s.ffn},
                                        {"layers", &s.layers},  {"seq", &s.seq},
                                        {"batch", &s.batch},    {"micro_batches", &s.micro_batches},
                                        {"experts", &s.experts}};
    if (k == "dtype")
      s.dtype = hn::stack::op::dtype_from_string(v);
    else if (ints.count(k))
      *ints[k] = std::stoi(v);
    else
      usage("unknown --size key " + k);
  }
}

json finding_json(const hn::reports::Finding& f) {
  return hn::reports::finding_to_json(f);
}

// One rank's part: resolve, run, and on rank 0 print and save.
int run_rank(hn::stack::comm::Communicator& world, const Options& o, const std::string& layout,
             const std::string& ckpt, const std::string& out_path) {
  hn::formats::Profile profile;
  profile.source = "model_step";
  profile.model = hn::formats::ModelSpec{};
  apply_size(*profile.model, o.size);
  model::ModelOverrides cli;
  cli.layout = layout;
  cli.steps = o.steps;
  cli.checkpoint_dir = ckpt;
  cli.backend = o.backend;
  auto r = model::resolve_model(profile, cli, world.size());
  r.options.reference = o.reference;
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<long long>(r.options.spec.timeout_s * 1000));
  auto result = model::run_model_phase(world, r.options, deadline);
  if (world.rank() == 0) {
    std::printf("%s", hn::reports::render_step_table_text(result.table).c_str());
    for (const auto& f : result.findings)
      std::printf("  %-5s %-20s %s\n", std::string(hn::reports::to_string(f.status)).c_str(),
                  f.code.c_str(), f.message.c_str());
    std::printf("\n");
    json j;
    j["layout"] = r.options.layout.to_string();
    j["world"] = world.size();
    j["transport"] = std::string(hn::stack::comm::to_string(world.transport()));
    j["losses"] = result.losses;
    j["step_ms"] = result.table.total_ms;
    for (const auto& row : result.table.rows)
      j["rows"].push_back({{"layer", row.layer},
                           {"what", row.what},
                           {"ms", row.ms},
                           {"bytes", row.bytes},
                           {"calls", row.calls}});
    for (const auto& m : result.measurements)
      j["measurements"].push_back(
          {{"name", m.name}, {"labels", m.labels}, {"value", m.value}, {"unit", m.unit}});
    for (const auto& f : result.findings) j["findings"].push_back(finding_json(f));
    if (!out_path.empty()) std::ofstream(out_path) << j.dump();
  }
  for (const auto& f : result.findings)
    if (f.status == hn::reports::Status::kFail || f.status == hn::reports::Status::kError) return 1;
  return 0;
}

double by_layer(const json& j, const std::string& layer) {
  double ms = 0;
  for (const auto& r : j.value("rows", json::array()))
    if (r["layer"] == layer) ms += r["ms"].get<double>();
  return ms;
}

double measurement(const json& j, const std::string& name) {
  for (const auto& m : j.value("measurements", json::array()))
    if (m["name"] == name && !m["labels"].contains("rank")) return m["value"].get<double>();
  return 0;
}

std::string finding_status(const json& j, const std::string& code) {
  for (const auto& f : j.value("findings", json::array()))
    if (f["code"] == code) return f["status"].get<std::string>();
  return "-";
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  std::string ckpt = o.checkpoint_dir;
#ifdef HN_HAVE_FAULTFS
  std::unique_ptr<hn::test::FaultFsMount> fs;
  if (o.fuse) {
    if (auto why = hn::test::FaultFsMount::unavailable_reason(); !why.empty())
      usage("--fuse: " + why);
    fs = std::make_unique<hn::test::FaultFsMount>();
    ckpt = fs->path();
  }
#else
  if (o.fuse) usage("--fuse needs a build with the test support (faultfs)");
#endif
  if (!o.local) {
    hn::stack::comm::BootstrapInputs in;
    in.rendezvous = o.rendezvous;
    auto b = hn::stack::comm::bootstrap_from_env(hn::stack::sched::process_env(), in);
    b.options.transport = hn::stack::comm::transport_from_string(o.transport);
    hn::stack::comm::Communicator world(b.options);
    return run_rank(world, o, o.layouts[0], ckpt, o.json_path);
  }
  char tmpl[] = "/tmp/model_step-XXXXXX";
  const std::string tmp = mkdtemp(tmpl);
  json all = json::array();
  int worst = 0;
  for (int rep = 0; rep < o.repeat; ++rep)
    for (const auto& layout : o.layouts) {
      const auto l = hn::stack::framework::parse_layout(layout);
      const std::string out = tmp + "/run.json";
      unlink(out.c_str());
      hn::stack::sched::LaunchOptions lo;
      lo.ranks = l.world();
      auto res = hn::stack::sched::launch_local(lo, [&](int) {
        try {
          auto b = hn::stack::comm::bootstrap_from_env(hn::stack::sched::process_env(), {});
          b.options.transport = hn::stack::comm::transport_from_string(o.transport);
          hn::stack::comm::Communicator world(b.options);
          return run_rank(world, o, layout, ckpt, out);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "model_step: %s\n", e.what());
          return 3;
        }
      });
      worst = std::max(worst, res.exit_code);
      std::ifstream in(out);
      if (in) {
        json j = json::parse(in);
        j["repeat"] = rep;
        all.push_back(j);
      }
    }
  std::filesystem::remove_all(tmp);
  // Summary: the median step of each layout over the repeats.
  std::printf("%-16s %5s %9s %9s %9s %9s %9s %9s %7s %10s %10s\n", "layout", "ranks", "step_ms",
              "L4_ms", "L3_ms", "L2_ms", "L1_ms", "max_diff", "resume", "ckpt_w_MB/s",
              "ckpt_r_MB/s");
  for (const auto& layout : o.layouts) {
    std::vector<json> runs;
    for (const auto& j : all)
      if (j["layout"] == hn::stack::framework::parse_layout(layout).to_string()) runs.push_back(j);
    if (runs.empty()) continue;
    std::sort(runs.begin(), runs.end(), [](const json& a, const json& b) {
      return a["step_ms"].get<double>() < b["step_ms"].get<double>();
    });
    const json& m = runs[runs.size() / 2];
    std::printf("%-16s %5d %9.2f %9.2f %9.2f %9.2f %9.2f %9.1e %7s %10.1f %10.1f\n",
                m["layout"].get<std::string>().c_str(), m["world"].get<int>(),
                m["step_ms"].get<double>(), by_layer(m, "L4"), by_layer(m, "L3"), by_layer(m, "L2"),
                by_layer(m, "L1"), measurement(m, "model.equivalence_max_diff"),
                finding_status(m, "MODEL-RESUME").c_str(),
                measurement(m, "model.checkpoint.write_throughput"),
                measurement(m, "model.checkpoint.read_throughput"));
  }
  const std::string doc = all.dump(2);
  std::printf("%s\n", doc.c_str());
  if (!o.json_path.empty()) std::ofstream(o.json_path) << doc << "\n";
  return worst;
}
