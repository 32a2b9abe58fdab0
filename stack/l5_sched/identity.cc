#include "stack/l5_sched/identity.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "compat/input_error.h"

namespace hn::stack::sched {

namespace {

constexpr long kMaxRanks = 1 << 20;

[[noreturn]] void bad_env(const char* name, const std::string& value, const std::string& want) {
  throw compat::InputError("environment", 0, 0, name, "'" + value + "' is not " + want);
}

bool has(const EnvLookup& env, const char* name) {
  return env(name) != nullptr;
}

int opt_int(const EnvLookup& env, const char* name, long min, long max, int fallback) {
  return has(env, name) ? env_int(env, name, min, max) : fallback;
}

std::string first_of(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const char* v = env(n); v && *v) return v;
  return "";
}

void check_rank(const Identity& id, const char* rank_var, const char* world_var) {
  if (id.rank >= id.world)
    throw compat::InputError(
        "environment", 0, 0, rank_var,
        std::to_string(id.rank) + " is not below " + world_var + "=" + std::to_string(id.world));
  if (id.local_world > 0 && id.local_rank >= id.local_world)
    throw compat::InputError("environment", 0, 0, "local rank",
                             std::to_string(id.local_rank) + " is not below the local world size " +
                                 std::to_string(id.local_world));
}

}  // namespace

std::string_view to_string(Launcher l) {
  switch (l) {
    case Launcher::kLocal:
      return "local";
    case Launcher::kOpenMpi:
      return "openmpi";
    case Launcher::kTorchrun:
      return "torchrun";
    case Launcher::kSlurm:
      return "slurm";
    case Launcher::kKubernetes:
      return "kubernetes";
    case Launcher::kNone:
      return "none";
  }
  return "?";
}

EnvLookup process_env() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

int env_int(const EnvLookup& env, const char* name, long min, long max) {
  const char* v = env(name);
  if (!v) throw compat::InputError("environment", 0, 0, name, "is not set");
  std::string s = v;
  std::string want = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (s.empty()) bad_env(name, s, want);
  char* end = nullptr;
  errno = 0;
  long x = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || x < min || x > max ||
      std::isspace(static_cast<unsigned char>(s[0])))
    bad_env(name, s, want);
  return static_cast<int>(x);
}

Identity detect_identity(const EnvLookup& env, const IdentityOptions& options) {
  Identity id;
  if (has(env, "HN_RANK")) {
    id.launcher = Launcher::kLocal;
    id.world = env_int(env, "HN_WORLD_SIZE", 1, kMaxRanks);
    id.rank = env_int(env, "HN_RANK", 0, kMaxRanks);
    id.local_rank = opt_int(env, "HN_LOCAL_RANK", 0, kMaxRanks, id.rank);
    id.local_world = opt_int(env, "HN_LOCAL_WORLD_SIZE", 1, kMaxRanks, id.world);
    id.node = opt_int(env, "HN_NODE_RANK", 0, kMaxRanks, 0);
    check_rank(id, "HN_RANK", "HN_WORLD_SIZE");
  } else if (has(env, "OMPI_COMM_WORLD_RANK")) {
    id.launcher = Launcher::kOpenMpi;
    id.world = env_int(env, "OMPI_COMM_WORLD_SIZE", 1, kMaxRanks);
    id.rank = env_int(env, "OMPI_COMM_WORLD_RANK", 0, kMaxRanks);
    id.local_rank = opt_int(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0, kMaxRanks, 0);
    id.local_world = opt_int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1, kMaxRanks, -1);
    id.node = opt_int(env, "OMPI_COMM_WORLD_NODE_RANK", 0, kMaxRanks, -1);
    check_rank(id, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE");
  } else if (has(env, "RANK") && has(env, "WORLD_SIZE")) {
    id.launcher = Launcher::kTorchrun;
    id.world = env_int(env, "WORLD_SIZE", 1, kMaxRanks);
    id.rank = env_int(env, "RANK", 0, kMaxRanks);
    id.local_rank = opt_int(env, "LOCAL_RANK", 0, kMaxRanks, 0);
    id.local_world = opt_int(env, "LOCAL_WORLD_SIZE", 1, kMaxRanks, -1);
    id.node = opt_int(env, "GROUP_RANK", 0, kMaxRanks, -1);
    check_rank(id, "RANK", "WORLD_SIZE");
  } else if (has(env, "SLURM_PROCID")) {
    id.launcher = Launcher::kSlurm;
    id.world = env_int(env, "SLURM_NTASKS", 1, kMaxRanks);
    id.rank = env_int(env, "SLURM_PROCID", 0, kMaxRanks);
    id.local_rank = opt_int(env, "SLURM_LOCALID", 0, kMaxRanks, 0);
    id.node = opt_int(env, "SLURM_NODEID", 0, kMaxRanks, -1);
    check_rank(id, "SLURM_PROCID", "SLURM_NTASKS");
  } else if (has(env, "JOB_COMPLETION_INDEX")) {
    id.launcher = Launcher::kKubernetes;
    id.rank = env_int(env, "JOB_COMPLETION_INDEX", 0, kMaxRanks);
    if (options.world_size) {
      id.world = *options.world_size;
      if (id.world < 1)
        throw compat::InputError("command line", 0, 0, "--world-size", "must be >= 1");
    } else if (has(env, "HN_WORLD_SIZE")) {
      id.world = env_int(env, "HN_WORLD_SIZE", 1, kMaxRanks);
    } else {
      throw compat::InputError(
          "environment", 0, 0, "JOB_COMPLETION_INDEX",
          "is set (Kubernetes indexed job) but the world size is unknown: pass "
          "--world-size N or set HN_WORLD_SIZE (the Job's completions)");
    }
    id.local_rank = 0;
    id.local_world = 1;
    id.node = id.rank;
    check_rank(id, "JOB_COMPLETION_INDEX", "the world size");
  }
  if (options.world_size && id.launcher != Launcher::kKubernetes &&
      id.launcher != Launcher::kNone && *options.world_size != id.world)
    throw compat::InputError(
        "command line", 0, 0, "--world-size",
        std::to_string(*options.world_size) + " disagrees with the launcher (" +
            std::string(to_string(id.launcher)) + ") world size " + std::to_string(id.world));
  if (id.launcher == Launcher::kNone && options.world_size && *options.world_size != 1)
    throw compat::InputError("command line", 0, 0, "--world-size",
                             "no launcher variables found (HN_RANK, OMPI_COMM_WORLD_RANK, RANK, "
                             "SLURM_PROCID, JOB_COMPLETION_INDEX): cannot place this process in a "
                             "world of " +
                                 std::to_string(*options.world_size));
  id.job_id = first_of(env, {"HN_JOB_ID", "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID",
                             "OMPI_MCA_ess_base_jobid", "JOB_NAME"});
  return id;
}

}  // namespace hn::stack::sched
