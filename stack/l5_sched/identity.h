#pragma once
// Who am I: rank, world size, local rank and node index, read from whichever
// engine started this process. hnprecheck is a guest of existing launchers;
// it never schedules. Detection order (first match wins, because launchers
// nest: torchrun under srun, mpirun inside a Slurm allocation):
//   1. our own local launcher   HN_RANK, HN_WORLD_SIZE, HN_LOCAL_RANK, HN_LOCAL_WORLD_SIZE
//   2. Open MPI / PMIx          OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE,NODE_RANK?}
//   3. torchrun                 RANK + WORLD_SIZE (+ LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK)
//   4. Slurm                    SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NODEID
//   5. Kubernetes indexed job   JOB_COMPLETION_INDEX; the world size comes from
//                               IdentityOptions::world_size or HN_WORLD_SIZE
//   6. nothing                  a single rank (0 of 1)
// A present but malformed value throws compat::InputError naming the variable
// (never a silent default). The job id (HN_JOB_ID, SLURM_JOB_ID, torchrun's
// TORCHELASTIC_RUN_ID, OMPI_MCA_ess_base_jobid, JOB_NAME) ties ranks to one job.

#include <functional>
#include <optional>
#include <string>

namespace hn::stack::sched {

enum class Launcher { kLocal, kOpenMpi, kTorchrun, kSlurm, kKubernetes, kNone };

std::string_view to_string(Launcher l);

struct Identity {
  int rank = 0;
  int world = 1;
  int local_rank = 0;
  int local_world = -1;  // -1: the launcher did not say
  int node = -1;         // node index, -1: unknown
  Launcher launcher = Launcher::kNone;
  std::string job_id;  // "" when no variable names one
};

// Returns the value of an environment variable or nullptr (getenv by default;
// tests pass a map).
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_env();

struct IdentityOptions {
  std::optional<int> world_size;  // --world-size: needed for Kubernetes indexed jobs
};

Identity detect_identity(const EnvLookup& env, const IdentityOptions& options = {});

// Parses an integer variable in [min, max]; throws compat::InputError naming
// it. Exposed for the rendezvous resolver and the launcher.
int env_int(const EnvLookup& env, const char* name, long min, long max);

}  // namespace hn::stack::sched
