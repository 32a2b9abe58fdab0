#include "preflight/certify/run.h"
#include "preflight/certify/message.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "compat/input_error.h"
#include "drivers/cluster/gather.h"
#include "preflight/certify/plan.h"
#include "preflight/command.h"
#include "preflight/report_output.h"
#include "reports/catalog.h"

namespace hn::preflight::certify {

using drivers::cluster::gather;
using drivers::cluster::gather_key;
using drivers::cluster::GatherOptions;

namespace {

using nlohmann::json;
using reports::Finding;
using reports::Status;

// Results still in flight when a phase's deadline passes get this long.
constexpr milliseconds kResultGrace{3000};
// After the rendezvous reports a death, the other ranks' results get this
// long before they are given up on too (their collectives fail at once).
constexpr milliseconds kAfterDeath{5000};
// Every rank joins the rendezvous within this (or the run's --timeout).
constexpr milliseconds kJoinTimeout{120000};

// The run ends by --timeout + 10 % + 1 s, report written and every rank
// gone: rank 0's waits after the run's deadline (results still in flight)
// stop this long before that end, which is left for the report and files,
// the goodbye of lost ranks (kLostGoodbye) and the launcher's stop of them
// (local_launcher.h leader_grace).
constexpr milliseconds kReportReserve{1000};
// Results are always waited for this long past a phase's deadline: a rank
// that stopped at the same deadline (blocked by a lost peer) reports right
// after it, and must not be taken for lost itself.
constexpr milliseconds kMinResultGrace{300};
constexpr milliseconds kLostGoodbye{300};
Deadline hard_end(Clock::time_point start, milliseconds run_timeout) {
  return start + run_timeout + run_timeout / 10 + milliseconds(1000) - kReportReserve;
}

long long ms_left(Deadline d) {
  return std::max<long long>(0, std::chrono::ceil<milliseconds>(d - Clock::now()).count());
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string seconds_text(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ms / 1000);
  return b;
}

std::vector<std::string> layer_names(const std::vector<reports::Layer>& layers) {
  std::vector<std::string> out;
  for (auto l : layers) out.emplace_back(reports::to_string(l));
  return out;
}

std::string join_layers(const std::vector<reports::Layer>& layers) {
  std::string s;
  for (auto l : layers) s += (s.empty() ? "" : " ") + std::string(reports::to_string(l));
  return s;
}

// A run-level finding in the phase's top layer.
Finding phase_finding(const Phase& p, const char* code, Status st, const std::string& entity,
                      const reports::Params& params) {
  Finding f = reports::make_finding(code, st, entity, params);
  f.layer = p.layers.front();
  return f;
}

struct Logger {
  int rank = 0;
  std::string host;
  bool on = false;
  void operator()(const std::string& line) const {
    if (!on) return;
    std::cerr << "[certify rank " << rank << (host.empty() ? "" : " " + host) << "] " << line
              << "\n";
  }
};

// Rank 0's progress line on a terminal: phase, elapsed time, ranks done.
struct Progress {
  bool on = false;
  Clock::time_point start = Clock::now();
  void show(std::size_t index, std::size_t count, const Phase& p, std::size_t done,
            std::size_t of) const {
    if (!on) return;
    std::fprintf(stderr, "\r\033[Kcertify [%zu/%zu] %s (%s)  %s s  %zu/%zu %s", index + 1, count,
                 p.name.c_str(), join_layers(p.layers).c_str(),
                 seconds_text(ms_since(start)).c_str(), done, of,
                 p.participants == Participants::kHostLeaders ? "hosts" : "ranks");
    std::fflush(stderr);
  }
  void end() const {
    if (!on) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
};

std::vector<int> participants(const Phase& p, const JobPlan& plan, int world) {
  std::vector<int> out;
  if (p.participants == Participants::kAllRanks)
    for (int r = 0; r < world; ++r) out.push_back(r);
  else if (p.participants == Participants::kHostLeaders)
    out = plan.leaders();
  return out;
}

bool takes_part(const Phase& p, const Role& role) {
  return p.participants == Participants::kAllRanks ||
         (p.participants == Participants::kHostLeaders && role.leader);
}

std::string run_part(const Phase& p, RankState& st, const std::string& args, Deadline deadline) {
  try {
    return "o" + p.run(st, args, deadline);
  } catch (const std::exception& e) {
    return std::string("e") + e.what();
  }
}

// ---- rank 0 ----------------------------------------------------------------

class CoordinatorRun {
 public:
  CoordinatorRun(const CertifyOptions& o, Control& control, RankState& st, const Logger& log,
                 Deadline end)
      : o_(o), control_(control), st_(st), log_(log), end_(end) {
    co_.options = &o;
    co_.control = &control;
    progress_.on = o.progress;
  }

  // Gathers the hellos and sends every rank its role. Returns 0 to go on,
  // or the exit code every rank ends with (2: the profile does not match).
  int form_job(Deadline join_deadline) {
    const int world = control_.world();
    std::vector<Hello> hellos(static_cast<std::size_t>(world));
    std::vector<int> all;
    for (int r = 0; r < world; ++r) all.push_back(r);
    auto missing = gather(
        control_.store(), "hello", all, join_deadline, [](int) { return false; },
        [&](int r, std::string&& v) { hellos[static_cast<std::size_t>(r)] = hello_from_json(v); });
    std::string abort;
    int code = 0;
    if (!missing.empty()) {
      std::string list;
      for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
      abort = "rank(s) " + list + " of " + std::to_string(world) +
              " did not join the rendezvous within " +
              std::to_string(ms_since(start_) / 1000.0).substr(0, 5) + " s";
      code = 3;
    } else {
      try {
        co_.plan = build_plan(hellos, *o_.profile);
        check_layout(o_, co_.plan);
      } catch (const compat::InputError& e) {
        abort = e.what();
        code = 2;
      }
    }
    for (int r = 0; r < world; ++r) {
      std::string v;
      if (code != 0) {
        v = json{{"abort", code}, {"message", abort}}.dump();
      } else {
        Role role;
        role.host = co_.plan.host_of[static_cast<std::size_t>(r)];
        role.leader = co_.plan.is_leader(r);
        role.hostname = co_.plan.hosts[static_cast<std::size_t>(role.host)].name;
        role.node = co_.plan.hosts[static_cast<std::size_t>(role.host)].node;
        v = role_to_json(role);
      }
      control_.store().set("role/" + std::to_string(r), v);
    }
    if (code != 0)
      std::cerr << "hnprecheck certify: " << (code == 2 ? "" : "the job could not form: ") << abort
                << "\n";
    return code;
  }

  RunResult run_phases(const std::vector<Phase>& phases, Deadline run_deadline) {
    RunResult res;
    res.certificate.started_unix_ms = started_unix_ms_;
    for (std::size_t i = 0; i < phases.size(); ++i) run_phase(i, phases, run_deadline, res);
    progress_.end();
    auto& c = res.certificate;
    c.finished_unix_ms = unix_ms_now();
    c.tool_version = tool_version();
    c.cluster = o_.profile->cluster;
    c.profile_source = o_.profile->source;
    c.profile_sha256 = o_.profile_sha256;
    c.launcher = o_.launcher;
    c.world = control_.world();
    for (const auto& h : co_.plan.hosts) c.hosts.push_back({h.name, h.node, h.ranks, h.machine});
    c.not_covered = coverage(c.phases);
    c.metrics = std::move(co_.metrics);
    c.findings = std::move(co_.findings);
    c.verdict = reports::verdict_for(c.findings, o_.strict);
    res.exit_code = reports::exit_code_of(c.verdict, o_.strict);
    return res;
  }

  // What this cluster could run that the run did not: phases not selected
  // or not possible for this job (one host, a model that does not fit), and
  // declared nodes absent from the job. One CERT-COVERAGE finding says it:
  // WARN makes the verdict partial.
  std::vector<reports::NotCovered> coverage(const std::vector<reports::CertificatePhase>& phases) {
    std::vector<reports::NotCovered> gaps;
    std::string ran, not_applicable;
    for (const auto& p : phases) {
      if (p.status != Status::kSkip) {
        ran += (ran.empty() ? "" : ", ") + p.name;
      } else if (p.skip_kind == "not_selected" || p.skip_kind == "not_possible") {
        gaps.push_back({p.name, p.skipped_because});
      } else if (p.skip_kind == "not_applicable") {
        not_applicable +=
            (not_applicable.empty() ? "" : "; ") + p.name + " (" + p.skipped_because + ")";
      }
    }
    for (const auto& f : co_.findings)
      if (f.code == "CERT-XHOST-COVERAGE" && f.status == Status::kWarn)
        gaps.push_back({"nodes", f.message});
    std::string gap_text;
    for (const auto& g : gaps)
      gap_text += (gap_text.empty() ? "" : "; ") + g.what + " (" + g.reason + ")";
    Finding f =
        reports::make_finding("CERT-COVERAGE", gaps.empty() ? Status::kPass : Status::kWarn, "run",
                              {{"ran", ran.empty() ? "none" : ran},
                               {"not_applicable", not_applicable.empty() ? "none" : not_applicable},
                               {"gaps", gap_text}});
    co_.findings.push_back(std::move(f));
    return gaps;
  }

 private:
  void run_phase(std::size_t index, const std::vector<Phase>& phases, Deadline run_deadline,
                 RunResult& res) {
    const Phase& p = phases[index];
    const auto t0 = Clock::now();
    reports::CertificatePhase rec;
    rec.name = p.name;
    rec.layers = layer_names(p.layers);
    std::vector<Finding> found;
    std::vector<reports::Measurement> figures;
    PhasePlan plan;
    std::string skip, skip_kind = "after_failure";
    bool timed_out = false;
    if (!o_.selected(p.name)) {
      skip = "not selected (--only / --skip)";
      skip_kind = "not_selected";
    } else if (p.participants != Participants::kRankZero && !co_.lost.empty()) {
      // A lost rank is the cause, and what could not run after it its
      // consequence: SKIP naming it, not a timeout of its own.
      const auto& [r, why] = *co_.lost.begin();
      skip =
          "rank " + std::to_string(r) + " on " + co_.plan.host_name(r) + " was lost (" + why + ")";
    } else if (Clock::now() >= run_deadline && p.participants != Participants::kRankZero) {
      // A rank-0 phase is analysis of what was gathered (milliseconds): it
      // still runs, within the run's end.
      timed_out = true;
    } else if (p.plan) {
      try {
        plan = p.plan(co_);
        skip = plan.skip_reason;
        skip_kind = plan.skip_kind;
      } catch (const std::exception& e) {
        found.push_back(phase_finding(p, "CERT-RANK-ERROR", Status::kError, "rank 0",
                                      {{"rank", "0"},
                                       {"host", co_.plan.host_name(0)},
                                       {"phase", p.name},
                                       {"reason", std::string("planning: ") + e.what()}}));
        skip = "rank 0 could not plan it";
      }
    }
    const Deadline deadline =
        p.participants == Participants::kRankZero && Clock::now() >= run_deadline
            ? end_
            : std::min(run_deadline, Clock::now() + p.deadline);
    co_.cut_by_run = deadline == run_deadline;
    const bool run = skip.empty() && !timed_out;
    control_.store().set(
        "go/" + p.name,
        json{{"run", run}, {"args", plan.args}, {"budget_ms", ms_left(deadline)}}.dump());
    for (auto& f : plan.findings) found.push_back(std::move(f));
    if (timed_out) {
      found.push_back(
          phase_finding(p, "CERT-RUN-TIMEOUT", Status::kError, "phase " + p.name,
                        {{"phase", p.name},
                         {"timeout_s", seconds_text(static_cast<double>(o_.run_timeout.count()))},
                         {"reason", "the run's --timeout ran out before phase " + p.name}}));
    } else if (!run) {
      found.push_back(phase_finding(p, "CERT-PHASE-SKIPPED", Status::kSkip, "phase " + p.name,
                                    {{"phase", p.name}, {"reason", skip}}));
      rec.skipped_because = skip;
      rec.skip_kind = skip_kind;
    } else {
      execute(index, phases.size(), p, plan.args, deadline, found, figures);
    }
    log_("phase " + p.name + " done in " + seconds_text(ms_since(t0)) + " s");
    int worst = -1;
    for (const auto& f : found)
      if (reports::outcome_weight(f.status) > worst) {
        worst = reports::outcome_weight(f.status);
        rec.status = f.status;
      }
    if (worst < 0) rec.status = Status::kSkip;
    rec.duration_ms = ms_since(t0);
    res.certificate.phases.push_back(rec);
    for (auto& m : figures) {
      if (m.phase.empty()) m.phase = p.name;
      co_.metrics.push_back(std::move(m));
    }
    for (auto& f : found) co_.findings.push_back(std::move(f));
  }

  void execute(std::size_t index, std::size_t count, const Phase& p, const std::string& args,
               Deadline deadline, std::vector<Finding>& found,
               std::vector<reports::Measurement>& figures) {
    std::map<int, std::string> results;
    std::map<int, std::string> errors;
    const auto who = participants(p, co_.plan, control_.world());
    auto keep = [&](int r, const std::string& reply) {
      if (!reply.empty() && reply[0] == 'o')
        results[r] = reply.substr(1);
      else
        errors[r] = reply.empty() ? "empty result" : reply.substr(1);
    };
    progress_.show(index, count, p, 0, who.size());
    std::vector<int> others;
    for (int r : who)
      if (r == 0)
        keep(0, run_part(p, st_, args, deadline));
      else
        others.push_back(r);
    std::size_t done = results.size() + errors.size();
    const std::set<int> dead_before = control_.dead();
    Clock::time_point death_seen{};
    auto lost = [&](int r) {
      auto dead = control_.dead();
      if (dead.count(r)) return true;
      if (dead.size() > dead_before.size()) {
        if (death_seen == Clock::time_point{}) death_seen = Clock::now();
        return Clock::now() > death_seen + kAfterDeath;
      }
      return false;
    };
    auto missing =
        gather(control_.store(), "res/" + p.name, others,
               std::min(deadline + kResultGrace, std::max(deadline + kMinResultGrace, end_)), lost,
               [&](int r, std::string&& v) {
                 keep(r, v);
                 progress_.show(index, count, p, ++done, who.size());
               });
    const auto dead = control_.dead();
    for (int r : missing) {
      const bool died = dead.count(r) > 0;
      std::string how =
          died                               ? "it died (reported by the rendezvous)"
          : dead.size() > dead_before.size() ? "it sent no result after another rank died"
          : co_.cut_by_run
              ? "it did not report before the run's --timeout of " +
                    seconds_text(static_cast<double>(o_.run_timeout.count())) + " s ran out"
              : "it did not report within the phase's deadline of " +
                    seconds_text(static_cast<double>(p.deadline.count())) + " s";
      Finding f = phase_finding(p, "CERT-RANK-LOST", Status::kFail,
                                co_.plan.host_name(r) + " rank " + std::to_string(r),
                                {{"rank", std::to_string(r)},
                                 {"host", co_.plan.host_name(r)},
                                 {"phase", p.name},
                                 {"ranks", std::to_string(control_.world())},
                                 {"how", how},
                                 {"cause", died ? "died" : "stopped answering"}});
      f.host = co_.plan.host_name(r);
      found.push_back(std::move(f));
      co_.lost[r] = p.name + ": " + (died ? "died" : "no result");
    }
    // With a rank lost, the others' errors are its echo ("peer closed"):
    // kept as evidence of the loss, not reported as errors of their own.
    for (const auto& [r, why] : errors) {
      if (!missing.empty()) {
        found.back().evidence["rank " + std::to_string(r) + " saw"] = why;
        continue;
      }
      Finding f = phase_finding(p, "CERT-RANK-ERROR", Status::kError,
                                co_.plan.host_name(r) + " rank " + std::to_string(r),
                                {{"rank", std::to_string(r)},
                                 {"host", co_.plan.host_name(r)},
                                 {"phase", p.name},
                                 {"reason", why},
                                 {"detail", why}});
      f.host = co_.plan.host_name(r);
      found.push_back(std::move(f));
    }
    try {
      PhaseOutcome out = p.combine(co_, args, results);
      for (auto& f : out.findings) found.push_back(std::move(f));
      for (auto& m : out.metrics) figures.push_back(std::move(m));
    } catch (const std::exception& e) {
      found.push_back(
          phase_finding(p, "CERT-RANK-ERROR", Status::kError, "rank 0",
                        {{"rank", "0"},
                         {"host", co_.plan.host_name(0)},
                         {"phase", p.name},
                         {"reason", std::string("combining the results: ") + e.what()}}));
    }
  }

  const CertifyOptions& o_;
  Control& control_;
  RankState& st_;
  const Logger& log_;
  const Deadline end_;  // hard_end(): nothing of rank 0 waits past it
  Coordinator co_;
  Progress progress_;
  const Clock::time_point start_ = Clock::now();
  const std::int64_t started_unix_ms_ = unix_ms_now();
};

// ---- every other rank ---------------------------------------------------------

void follow(const std::vector<Phase>& phases, RankState& st, Deadline run_deadline,
            const Logger& log) {
  comm::Store& store = st.store();
  // Rank 0 may spend the whole run before the last "go": wait that long.
  auto wait = [&] { return milliseconds(ms_left(run_deadline) + 60000); };
  for (const auto& p : phases) {
    json go = parse_message(store.get("go/" + p.name, wait()));
    if (!go.at("run").get<bool>() || !takes_part(p, st.role)) continue;
    const auto t0 = Clock::now();
    const Deadline deadline = t0 + milliseconds(go.at("budget_ms").get<long long>());
    std::string reply = run_part(p, st, go.at("args").get<std::string>(), deadline);
    log("phase " + p.name + (reply[0] == 'o' ? " done" : " failed: " + reply.substr(1)) + " in " +
        seconds_text(ms_since(t0)) + " s");
    store.set(gather_key("res/" + p.name, st.rank), reply);
  }
  store.get("done", wait());
}

}  // namespace

int run_certify(const CertifyOptions& options, const comm::CommOptions& comm_options,
                HostAgent& agent, const EmitFn& emit) {
  const auto start = Clock::now();
  const Deadline run_deadline = start + options.run_timeout;
  const int me = comm_options.rank;
  Logger log{me, "", options.log_ranks};
  try {
    Control control(comm_options, [me](int rank, const std::string& why) {
      // Rank 0 carries the run: without it there is nothing left to do.
      if (me != 0 && rank == 0) {
        std::fprintf(stderr,
                     "hnprecheck certify: rank %d: %s; stopping (rank 0 writes the "
                     "report, and it is gone)\n",
                     me, why.c_str());
        std::fflush(stderr);
        std::_Exit(3);
      }
    });
    RankState st;
    st.rank = me;
    st.world = comm_options.world;
    st.control = &control;
    st.agent = &agent;
    st.options = &options;
    st.base = comm_options;
    st.base.store_fd = -1;
    control.store().set(gather_key("hello", me), hello_to_json(local_hello()));
    const auto phases = certify_phases(options);
    if (me == 0) {
      const Deadline end = hard_end(start, options.run_timeout);
      CoordinatorRun co(options, control, st, log, end);
      int code = co.form_job(std::min(run_deadline, start + kJoinTimeout));
      if (code != 0) {
        control.leave(true);
        control.finish(Clock::now() + milliseconds(5000));
        return code;
      }
      st.role = role_from_json(control.store().get("role/0", milliseconds(1000)));
      log.host = st.role.hostname;
      RunResult res = co.run_phases(phases, run_deadline);
      int exit_code = emit(res);
      control.store().set("done", std::to_string(exit_code));
      control.leave(true);
      // Ranks that say goodbye are let go; one that never will (stopped,
      // hung: lost) is not waited for.
      bool lost = false;
      for (const auto& f : res.certificate.findings) lost = lost || f.code == "CERT-RANK-LOST";
      control.finish(lost ? Clock::now() + kLostGoodbye
                          : std::min(Clock::now() + milliseconds(10000),
                                     std::max(Clock::now() + kLostGoodbye, end + kReportReserve)));
      return exit_code;
    }
    json role = parse_message(control.store().get("role/" + std::to_string(me),
                                                  milliseconds(ms_left(run_deadline) + 60000)));
    if (role.contains("abort")) {
      control.leave(true);
      return role["abort"].get<int>();
    }
    st.role = role_from_json(role.dump());
    log.host = st.role.hostname;
    follow(phases, st, run_deadline, log);
    control.leave(true);
    // Rank 0 carries the verdict (its exit code); this rank did its part.
    return 0;
  } catch (const comm::CommError& e) {
    std::cerr << "hnprecheck certify: rank " << me << ": " << e.what() << "\n";
    return 3;
  }
}

}  // namespace hn::preflight::certify
