#pragma once
// The six migration concerns, one function each (one file each). Each takes
// the resolved job (and, for the comm-related ones, its translation) and
// returns the concern with its findings; none does I/O except the operator
// check, which reads the model file. They throw compat::InputError only for
// a malformed model or launch value (exit 2).

#include <string>
#include <vector>

#include "compat/translate/translator.h"
#include "migrate/concern.h"
#include "migrate/job.h"
#include "reports/migrate_report.h"

namespace hn::migrate {

// The job's communication settings translated for the target library, with
// the rules and cluster facts that were used.
struct CommTranslation {
  compat::translate::Translation translation;
  std::string header;  // the env file's header line
};
CommTranslation translate_job(const Job& job);

// Where the generated artifacts went, for the comm concern's "apply" step.
struct ArtifactNames {
  std::string env_file;  // empty when not written
  std::string script;    // empty when not written
};

Concern check_operators(const Job& job, std::vector<reports::OperatorShare>& shares);
Concern check_comm(const Job& job, const CommTranslation& t, const ArtifactNames& artifacts);
Concern check_storage(const Job& job);
Concern check_network(const Job& job, const CommTranslation& t);
Concern check_scheduling(const Job& job);
Concern check_observability(const Job& job, const CommTranslation& t);

// The profile's cluster name, or "the target" when it has none.
inline std::string cluster_name(const Job& job) {
  return job.profile.cluster.empty() ? "the target" : job.profile.cluster;
}

// Shared by storage and observability: one finding for one path of the job.
void check_path(Concern& c, const Job& job, const JobPath& p);

}  // namespace hn::migrate
