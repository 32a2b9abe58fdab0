#pragma once
// A certify phase: one step of the layered walk (hosts, cross_host, links,
// bandwidth, collectives, storage, model, placement), as data plus three functions.
// Adding a phase is one entry in certify_phases() (phases.cc).
//
//   plan     rank 0, before the phase: whether it runs, what the ranks are
//            told (args, JSON text), and SKIP findings for the parts that
//            cannot be meaningful after an earlier failure (naming it)
//   run      every participating rank (rank 0 too): its part, bounded by
//            the deadline it is given; returns its result (JSON text) or
//            throws (the rank reports the error and the run goes on)
//   combine  rank 0, with every result that arrived by the deadline: the
//            phase's findings and measured figures
//
// Participants: every rank (collectives need them all), the lowest rank of
// each host (host-local work), or rank 0 alone (pure analysis of what was
// already gathered). A lost rank (dead, or silent past the deadline) is
// named by the runner (CERT-RANK-LOST); later phases that need ranks are
// SKIP naming it; rank-0-only phases still run.

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "preflight/certify/state.h"
#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::preflight::certify {

enum class Participants { kAllRanks, kHostLeaders, kRankZero };

struct PhasePlan {
  std::string skip_reason;                 // non-empty: the whole phase is SKIP with this reason
  // Why it is skipped (reports/certificate.h CertificatePhase::skip_kind):
  // not_applicable (the profile asks for nothing it does), not_possible (this
  // job cannot run it: the run is partial), after_failure (the default).
  std::string skip_kind = "after_failure";
  std::string args = "{}";                 // JSON text every participant receives
  std::vector<reports::Finding> findings;  // SKIPs of parts that do not run
};

struct PhaseOutcome {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

struct Phase {
  std::string name;
  std::vector<reports::Layer> layers;
  std::chrono::milliseconds deadline{60000};
  Participants participants = Participants::kAllRanks;
  std::function<PhasePlan(Coordinator&)> plan;  // optional: always runs, "{}"
  std::function<std::string(RankState&, const std::string& args, Deadline deadline)> run;
  std::function<PhaseOutcome(Coordinator&, const std::string& args,
                             const std::map<int, std::string>& results)>
      combine;
};

// The phases in the seed's layered order.
std::vector<Phase> certify_phases(const CertifyOptions& options);

// Phase names: hosts, cross_host, links, bandwidth, collectives, storage,
// model, placement. Throws compat::InputError (field) for a name not in the list.
void check_phase_names(const std::vector<std::string>& names, const std::string& field);

}  // namespace hn::preflight::certify
