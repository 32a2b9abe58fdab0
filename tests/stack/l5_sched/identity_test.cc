#include "stack/l5_sched/identity.h"

#include <catch2/catch.hpp>

#include <map>

#include "compat/input_error.h"
#include "stack/l5_sched/rendezvous.h"

using namespace hn::stack::sched;
using Env = std::map<std::string, std::string>;

namespace {
EnvLookup lookup(const Env& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST_CASE("identity from each launcher") {
  struct Case {
    Env env;
    Launcher launcher;
    int rank, world, local_rank, node;
    std::string job;
  };
  std::vector<Case> cases = {
      {{}, Launcher::kNone, 0, 1, 0, -1, ""},
      {{{"HN_RANK", "2"}, {"HN_WORLD_SIZE", "4"}, {"HN_JOB_ID", "j1"}},
       Launcher::kLocal,
       2,
       4,
       2,
       0,
       "j1"},
      {{{"SLURM_PROCID", "5"},
        {"SLURM_NTASKS", "8"},
        {"SLURM_LOCALID", "1"},
        {"SLURM_NODEID", "2"},
        {"SLURM_JOB_ID", "777"}},
       Launcher::kSlurm,
       5,
       8,
       1,
       2,
       "777"},
      {{{"OMPI_COMM_WORLD_RANK", "3"},
        {"OMPI_COMM_WORLD_SIZE", "4"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
        {"SLURM_PROCID", "0"},
        {"SLURM_NTASKS", "1"}},
       Launcher::kOpenMpi,
       3,
       4,
       1,
       -1,
       ""},
      {{{"RANK", "6"},
        {"WORLD_SIZE", "16"},
        {"LOCAL_RANK", "2"},
        {"GROUP_RANK", "1"},
        {"TORCHELASTIC_RUN_ID", "r9"},
        {"SLURM_PROCID", "1"},
        {"SLURM_NTASKS", "2"}},
       Launcher::kTorchrun,
       6,
       16,
       2,
       1,
       "r9"},
  };
  for (const auto& c : cases) {
    Identity id = detect_identity(lookup(c.env));
    INFO(to_string(c.launcher));
    CHECK(id.launcher == c.launcher);
    CHECK(id.rank == c.rank);
    CHECK(id.world == c.world);
    CHECK(id.local_rank == c.local_rank);
    CHECK(id.node == c.node);
    CHECK(id.job_id == c.job);
  }
}

TEST_CASE("Kubernetes indexed jobs take the world size from the option or HN_WORLD_SIZE") {
  Env env = {{"JOB_COMPLETION_INDEX", "3"}};
  CHECK_THROWS_WITH(detect_identity(lookup(env)), Catch::Contains("--world-size"));
  Identity id = detect_identity(lookup(env), IdentityOptions{8});
  CHECK(id.launcher == Launcher::kKubernetes);
  CHECK(id.rank == 3);
  CHECK(id.world == 8);
  env["HN_WORLD_SIZE"] = "4";
  CHECK(detect_identity(lookup(env)).world == 4);
  env["JOB_COMPLETION_INDEX"] = "4";
  CHECK_THROWS_AS(detect_identity(lookup(env)), hn::compat::InputError);
}

TEST_CASE("malformed launcher variables name the variable") {
  std::vector<std::pair<Env, std::string>> bad = {
      {{{"SLURM_PROCID", "x"}, {"SLURM_NTASKS", "2"}}, "SLURM_PROCID"},
      {{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "-2"}}, "SLURM_NTASKS"},
      {{{"SLURM_PROCID", "0"}}, "SLURM_NTASKS"},
      {{{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "2"}}, "SLURM_PROCID"},
      {{{"RANK", "1 "}, {"WORLD_SIZE", "2"}}, "RANK"},
      {{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "99999999999"}},
       "OMPI_COMM_WORLD_SIZE"},
      {{{"HN_RANK", ""}, {"HN_WORLD_SIZE", "2"}}, "HN_RANK"},
  };
  for (const auto& [env, var] : bad) {
    INFO(var);
    try {
      detect_identity(lookup(env));
      FAIL("accepted");
    } catch (const hn::compat::InputError& e) {
      CHECK(e.field() == var);
    }
  }
}

TEST_CASE("rendezvous address: option, then HN_RENDEZVOUS, MASTER_ADDR/PORT, SLURM_JOB_NODELIST") {
  Env env = {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}, {"SLURM_JOB_NODELIST", "gpu[07-09,12]"}};
  Identity id = detect_identity(lookup(env));
  Endpoint e = resolve_rendezvous(lookup(env), id, "");
  CHECK(e.host == "gpu07");
  CHECK(e.port == kDefaultRendezvousPort);
  CHECK(e.source == "SLURM_JOB_NODELIST");
  env["MASTER_ADDR"] = "10.0.0.1";
  env["MASTER_PORT"] = "1234";
  e = resolve_rendezvous(lookup(env), id, "");
  CHECK((e.host == "10.0.0.1" && e.port == 1234));
  env["HN_RENDEZVOUS"] = "[fd00::1]:99";
  e = resolve_rendezvous(lookup(env), id, "");
  CHECK((e.host == "fd00::1" && e.port == 99));
  e = resolve_rendezvous(lookup(env), id, "host:5");
  CHECK((e.host == "host" && e.port == 5 && e.source == "--rendezvous"));
  CHECK_THROWS_AS(resolve_rendezvous(lookup(env), id, "host:0"), hn::compat::InputError);
  CHECK_THROWS_AS(resolve_rendezvous(lookup(env), id, "host"), hn::compat::InputError);
  CHECK_THROWS_AS(resolve_rendezvous(lookup({{"MASTER_PORT", "x1"}, {"MASTER_ADDR", "a"}}), id, ""),
                  hn::compat::InputError);
  Env bad_list = {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "n[1-"}};
  try {
    resolve_rendezvous(lookup(bad_list), detect_identity(lookup(bad_list)), "");
    FAIL("accepted");
  } catch (const hn::compat::InputError& ex) {
    CHECK(ex.field() == "SLURM_JOB_NODELIST");
  }
  Env nothing = {{"RANK", "0"}, {"WORLD_SIZE", "2"}};
  CHECK_THROWS_WITH(resolve_rendezvous(lookup(nothing), detect_identity(lookup(nothing)), ""),
                    Catch::Contains("--rendezvous"));
}
