#include "probes/model/model_phase.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "compat/input_error.h"
#include "probes/model/checkpoint_io.h"
#include "probes/model/phase_report.h"
#include "reports/catalog.h"
#include "stack/l1_model/checkpoint.h"
#include "stack/l1_model/trainer.h"
#include "stack/l3_comm/collectives.h"
#include "stack/l4_operator/graph.h"
#include "stack/l5_sched/local_launcher.h"

namespace hn::probes::model {

namespace comm = stack::comm;
namespace fw = stack::framework;
using reports::Finding;
using reports::Status;
using stack::model::Trainer;
using Clock = std::chrono::steady_clock;

namespace {

// One collective that every rank reaches at the same point: true when any
// rank is past the deadline, so all stop together.
bool past_deadline(comm::Communicator& world, Clock::time_point deadline) {
  std::int32_t flag = Clock::now() >= deadline ? 1 : 0;
  comm::Options o;
  o.dtype = stack::op::DType::kI32;
  o.op = stack::op::ReduceOp::kMax;
  comm::allreduce(world, &flag, &flag, 1, o);
  return flag != 0;
}

comm::Options wait_options(comm::Communicator& world, double extra_s, stack::op::DType t) {
  comm::Options o;
  o.dtype = t;
  o.timeout = world.timeout() + std::chrono::milliseconds(static_cast<long long>(extra_s * 1000));
  return o;
}

// Per rank: ok, bytes, ms. Everyone learns everyone's outcome.
struct Outcomes {
  std::vector<double> v;  // 3 per rank
  bool ok(int r) const { return v[static_cast<std::size_t>(3 * r)] != 0; }
  double bytes(int r) const { return v[static_cast<std::size_t>(3 * r + 1)]; }
  double ms(int r) const { return v[static_cast<std::size_t>(3 * r + 2)]; }
  int n() const { return static_cast<int>(v.size() / 3); }
  std::vector<int> failed() const {
    std::vector<int> f;
    for (int r = 0; r < n(); ++r)
      if (!ok(r)) f.push_back(r);
    return f;
  }
};

Outcomes exchange(comm::Communicator& world, const IoOutcome& mine, double wait_s) {
  std::vector<double> own = {mine.ok ? 1.0 : 0.0, static_cast<double>(mine.bytes), mine.ms};
  Outcomes all;
  all.v.resize(3 * static_cast<std::size_t>(world.size()));
  comm::allgather(world, own.data(), all.v.data(), 3,
                  wait_options(world, wait_s, stack::op::DType::kF64));
  return all;
}

// The per-rank and aggregate figures of one checkpoint pass (rank 0).
void io_figures(PhaseReport& rep, const char* what, const Outcomes& o, const std::string& dir,
                std::map<std::string, std::string>& params) {
  double total = 0, slowest = 0;
  for (int r = 0; r < o.n(); ++r) {
    total += o.bytes(r);
    slowest = std::max(slowest, o.ms(r));
    const double mbps = o.ms(r) > 0 ? o.bytes(r) / (o.ms(r) * 1e3) : 0;
    rep.measure(std::string("model.checkpoint.") + what + "_throughput",
                {{"rank", std::to_string(r)}, {"dir", dir}}, mbps, "MB/s",
                reports::Better::kHigher);
    rep.measure(std::string("model.checkpoint.") + what + "_time",
                {{"rank", std::to_string(r)}, {"dir", dir}}, o.ms(r), "ms",
                reports::Better::kLower);
  }
  const double mbps = slowest > 0 ? total / (slowest * 1e3) : 0;
  rep.measure(std::string("model.checkpoint.") + what + "_throughput", {{"dir", dir}}, mbps, "MB/s",
              reports::Better::kHigher);
  rep.measure(std::string("model.checkpoint.") + what + "_time", {{"dir", dir}}, slowest, "ms",
              reports::Better::kLower);
  params = {{"shards", std::to_string(o.n())},
            {"bytes", number(total, "%.0f")},
            {"dir", dir},
            {"mbps", number(mbps, "%.1f")},
            {"max_ms", number(slowest, "%.1f")}};
}

Finding comm_finding(const comm::CommError& e, int rank) {
  const auto& c = e.context();
  const std::string r = std::to_string(rank);
  if (auto* d = dynamic_cast<const comm::PeerDiedError*>(&e))
    return reports::make_finding("MODEL-RANK-DIED", Status::kFail, "rank " + r,
                                 {{"dead_rank", std::to_string(d->dead_rank())},
                                  {"rank", r},
                                  {"operation", c.operation},
                                  {"elapsed_ms", std::to_string(c.elapsed.count())},
                                  {"detail", e.what()}});
  std::string kind = "link error";
  if (auto* l = dynamic_cast<const comm::LinkError*>(&e))
    kind = comm::LinkError::kind_name(l->kind());
  return reports::make_finding(
      "MODEL-COLLECTIVE", Status::kFail, "rank " + r,
      {{"kind", kind}, {"operation", c.operation}, {"rank", r}, {"detail", e.what()}});
}

struct Checkpoint {
  bool written = false;
  std::string dir;
  std::uint64_t shard_bytes = 0;
  long long at_step = 0;  // steps done when it was taken
};

stack::model::TrainerOptions trainer_options(const ModelPhaseOptions& o) {
  stack::model::TrainerOptions t;
  t.model = o.spec.size;
  t.layout = o.layout;
  t.optimizer = o.spec.optimizer;
  t.seed = o.spec.seed;
  t.matrix = o.matrix;
  t.grad_sync.skip_data_parallel = o.inject.skip_grad_sync;
  t.grad_sync.fault_scale = o.inject.grad_scale;
  t.grad_sync.fault_negate_one = o.inject.negate_one_grad;
  t.grad_sync.fault_drop_bucket = o.inject.drop_bucket;
  t.fault_skip_update_at = o.inject.stale_step;
  t.pipeline_faults.swap_micro_batches = o.inject.swap_micro_batches;
  t.group_links = o.group_links;
  return t;
}

// The job-wide random id that keeps two runs' checkpoints apart.
std::string run_id(comm::Communicator& world) {
  std::int64_t id = 0;
  if (world.rank() == 0) {
    const std::string hex = stack::sched::random_hex(7);
    id = static_cast<std::int64_t>(std::stoull(hex, nullptr, 16));
  }
  comm::Options o;
  o.dtype = stack::op::DType::kI64;
  comm::broadcast(world, &id, 1, o);
  std::ostringstream os;
  os << std::hex << id;
  return os.str();
}

class Phase {
 public:
  Phase(comm::Communicator& world, const ModelPhaseOptions& o, Clock::time_point deadline)
      : world_(world),
        o_(o),
        deadline_(deadline),
        rank_(world.rank()),
        layout_(o.layout.to_string()),
        rep_(rank_, layout_) {}

  ModelPhaseResult run();

 private:
  bool build(std::unique_ptr<Trainer>& t);
  void train(Trainer& t);
  void replica_check(Trainer& t, long long step);
  void save(Trainer& t);
  void resume();
  void reference();
  void judge_loss();

  comm::Communicator& world_;
  const ModelPhaseOptions& o_;
  Clock::time_point deadline_;
  int rank_;
  std::string layout_, id_;
  PhaseReport rep_;
  std::vector<double> losses_;
  std::vector<fw::StepTime> times_;
  Checkpoint ckpt_;
  std::map<std::string, ReplicaSeen> replicas_;
  int done_ = 0;
};

ModelPhaseResult Phase::run() {
  try {
    id_ = run_id(world_);
    std::unique_ptr<Trainer> trainer;
    if (!build(trainer)) return rep_.finish(losses_);
    train(*trainer);
    trainer.reset();  // its groups borrow the world: gone before the next trainer
    if (done_ == o_.spec.steps) resume();
    judge_loss();
    rep_.step_table(world_, id_, times_, o_.spec.steps);
    if (o_.reference) reference();
  } catch (const comm::CommError& e) {
    rep_.add(comm_finding(e, rank_));
  }
  return rep_.finish(losses_);
}

bool Phase::build(std::unique_ptr<Trainer>& t) {
  try {
    t = std::make_unique<Trainer>(world_, trainer_options(o_));
  } catch (const stack::op::UnsupportedOpError& e) {
    // Every rank checks the same graphs against the same matrix: rank 0 says it.
    if (rank_ == 0) {
      rep_.job(reports::make_finding(e.code(), Status::kFail, e.params().at("op"), e.params()));
      rep_.job(reports::make_finding("MODEL-OPS", Status::kFail, o_.matrix->backend,
                                     {{"backend", o_.matrix->backend}}));
    }
    return false;
  }
  rep_.layout_finding(t->groups(), world_.size());
  rep_.job(reports::make_finding("MODEL-OPS", Status::kPass, o_.matrix->backend,
                                 {{"backend", o_.matrix->backend},
                                  {"graphs", std::to_string(t->graph_count())},
                                  {"nodes", std::to_string(t->node_count())}}));
  return true;
}

void Phase::train(Trainer& t) {
  const int steps = o_.spec.steps, every = o_.spec.replica_check_every;
  const long long save_at = o_.checkpoint_dir.empty() || steps < 2 ? -1 : steps / 2;
  for (int s = 0; s < steps; ++s) {
    if (past_deadline(world_, deadline_)) {
      rep_.job(reports::make_finding("MODEL-DEADLINE", Status::kFail, layout_,
                                     {{"layout", layout_},
                                      {"done", std::to_string(done_)},
                                      {"steps", std::to_string(steps)},
                                      {"timeout_s", number(o_.spec.timeout_s, "%g")}}));
      return;
    }
    if (o_.inject.kill_rank == rank_ && o_.inject.kill_step == s) {
      std::thread([ms = o_.inject.kill_after_ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        raise(SIGKILL);
      }).detach();
    }
    auto r = t.step();
    losses_.push_back(r.loss);
    times_.push_back(r.time);
    ++done_;
    if (o_.inject.flip_rank == rank_ && o_.inject.flip_step == s) t.flip_one_bit();
    if ((s + 1) % every == 0 || s + 1 == steps) replica_check(t, s);
    if (s + 1 == save_at) save(t);
  }
  rep_.job(reports::make_finding("MODEL-DEADLINE", Status::kPass, layout_,
                                 {{"layout", layout_},
                                  {"steps", std::to_string(steps)},
                                  {"timeout_s", number(o_.spec.timeout_s, "%g")}}));
  for (const auto& [group, seen] : replicas_) rep_.replica_finding(seen);
}

void Phase::replica_check(Trainer& t, long long step) {
  for (auto& g : t.check_replicas()) {
    if (!g.reporter) continue;
    ReplicaSeen& seen = replicas_[g.group];
    if (!seen.diverged.empty()) continue;  // the first divergence is the one to report
    seen.group = g.group;
    seen.members = g.members;
    seen.diverged = g.diverged;
    seen.step = step;
  }
}

void Phase::save(Trainer& t) {
  const double timeout = o_.spec.checkpoint_timeout_s;
  ckpt_.at_step = t.steps_done();
  ckpt_.dir =
      o_.checkpoint_dir + "/hnprecheck-model-" + id_ + "/step-" + std::to_string(ckpt_.at_step);
  const auto bytes = stack::model::encode_shard(t.state(), rank_, layout_);
  ckpt_.shard_bytes = bytes.size();
  const std::string digest = stack::model::sha256_hex(bytes);
  IoOutcome w = write_file_supervised(ckpt_.dir, stack::model::shard_file_name(rank_), bytes, rank_,
                                      "write", timeout);
  for (auto& f : w.findings) rep_.add(f);
  Outcomes all = exchange(world_, w, timeout);
  // The manifest needs every shard's digest: 64 hex digits as 16 words each.
  std::vector<std::int32_t> mine(16), digests(16 * static_cast<std::size_t>(world_.size()));
  std::memcpy(mine.data(), digest.data(), std::min<std::size_t>(64, digest.size()));
  comm::allgather(world_, mine.data(), digests.data(), 16,
                  wait_options(world_, 0, stack::op::DType::kI32));
  std::int32_t manifest_ok = 0;
  if (all.failed().empty() && rank_ == 0) {
    stack::model::Manifest m;
    m.step = ckpt_.at_step;
    m.layout = layout_;
    m.world = world_.size();
    for (int r = 0; r < world_.size(); ++r)
      m.shards.push_back({r, stack::model::shard_file_name(r),
                          static_cast<std::uint64_t>(all.bytes(r)),
                          std::string(reinterpret_cast<const char*>(digests.data() + 16 * r), 64)});
    const std::string text = stack::model::manifest_json(m);
    IoOutcome mw = write_file_supervised(
        ckpt_.dir, stack::model::kManifestName,
        std::vector<std::byte>(reinterpret_cast<const std::byte*>(text.data()),
                               reinterpret_cast<const std::byte*>(text.data()) + text.size()),
        rank_, "manifest write", timeout);
    for (auto& f : mw.findings) rep_.add(f);
    manifest_ok = mw.ok ? 1 : 0;
  }
  comm::broadcast(world_, &manifest_ok, 1, wait_options(world_, timeout, stack::op::DType::kI32));
  ckpt_.written = manifest_ok != 0;
  if (rank_ != 0) return;
  std::map<std::string, std::string> params;
  io_figures(rep_, "write", all, o_.checkpoint_dir, params);
  if (ckpt_.written) {
    params["dir"] = ckpt_.dir;
    rep_.job(reports::make_finding("MODEL-CKPT-WRITE", Status::kPass, o_.checkpoint_dir, params));
  } else {
    params["detail"] = all.failed().empty()
                           ? "the manifest could not be written (see the finding of rank 0)"
                           : "ranks " + rank_list(all.failed()) +
                                 " could not write their shards (see their MODEL-CKPT-* findings); "
                                 "no manifest was written, so this is not a checkpoint";
    rep_.job(reports::make_finding("MODEL-CKPT-WRITE", Status::kFail, o_.checkpoint_dir, params));
  }
}

void Phase::resume() {
  const std::string skip_reason =
      o_.checkpoint_dir.empty()
          ? "no checkpoint directory (model.checkpoint.dir, --checkpoint-dir or a storage mount)"
      : o_.spec.steps < 2 ? "fewer than 2 steps"
                          : "no complete checkpoint was written";
  if (!ckpt_.written) {
    for (const char* code : {"MODEL-RESUME", "MODEL-CKPT-READ", "MODEL-CKPT-CHECKSUM"})
      rep_.job(reports::make_finding(code, Status::kSkip, layout_, {{"reason", skip_reason}}));
    return;
  }
  const double timeout = o_.spec.checkpoint_timeout_s;
  auto t = std::make_unique<Trainer>(world_, trainer_options(o_));
  ReadOutcome rd = read_checkpoint_supervised(ckpt_.dir, stack::model::shard_file_name(rank_),
                                              ckpt_.shard_bytes + 4096, rank_, timeout);
  for (auto& f : rd.io.findings) rep_.add(f);
  bool ok = rd.io.ok;
  if (ok) {
    std::string detail;
    try {
      auto m =
          stack::model::parse_manifest(rd.manifest, ckpt_.dir + "/" + stack::model::kManifestName);
      const auto& e = m.shards.at(static_cast<std::size_t>(rank_));
      if (e.bytes != rd.shard.size())
        detail = "size " + std::to_string(rd.shard.size()) + " bytes, the manifest says " +
                 std::to_string(e.bytes);
      else if (stack::model::sha256_hex(rd.shard) != e.sha256)
        detail =
            "SHA-256 " + stack::model::sha256_hex(rd.shard) + ", the manifest says " + e.sha256;
      else
        t->restore(stack::model::decode_shard(rd.shard, rank_, layout_));
    } catch (const std::exception& e) {
      detail = e.what();
    }
    if (!detail.empty()) {
      ok = false;
      rep_.add(reports::make_finding("MODEL-CKPT-CHECKSUM", Status::kFail,
                                     "rank " + std::to_string(rank_),
                                     {{"file", stack::model::shard_file_name(rank_)},
                                      {"rank", std::to_string(rank_)},
                                      {"dir", ckpt_.dir},
                                      {"detail", detail}}));
    }
  }
  IoOutcome mine = rd.io;
  mine.ok = ok;
  Outcomes all = exchange(world_, mine, timeout);
  const bool everyone = all.failed().empty();
  // Resumed steps must reproduce the uninterrupted ones bit for bit.
  long long differs_at = -1;
  double resumed_loss = 0;
  if (everyone)
    for (long long s = ckpt_.at_step; s < o_.spec.steps; ++s) {
      auto r = t->step();
      if (o_.inject.flip_rank == rank_ && o_.inject.flip_step == s) t->flip_one_bit();
      if (differs_at < 0 &&
          std::memcmp(&r.loss, &losses_[static_cast<std::size_t>(s)], sizeof r.loss) != 0) {
        differs_at = s;
        resumed_loss = r.loss;
      }
    }
  t.reset();
  if (rank_ == 0) {
    std::map<std::string, std::string> params;
    io_figures(rep_, "read", all, o_.checkpoint_dir, params);
    if (everyone) {
      params["dir"] = ckpt_.dir;
      rep_.job(reports::make_finding("MODEL-CKPT-READ", Status::kPass, o_.checkpoint_dir, params));
      rep_.job(
          reports::make_finding("MODEL-CKPT-CHECKSUM", Status::kPass, ckpt_.dir,
                                {{"shards", std::to_string(world_.size())}, {"dir", ckpt_.dir}}));
      std::map<std::string, std::string> p = {{"layout", layout_},
                                              {"at", std::to_string(ckpt_.at_step)},
                                              {"from", std::to_string(ckpt_.at_step + 1)},
                                              {"to", std::to_string(o_.spec.steps)}};
      if (differs_at < 0) {
        rep_.job(reports::make_finding("MODEL-RESUME", Status::kPass, layout_, p));
      } else {
        p["step"] = std::to_string(differs_at + 1);
        p["resumed"] = number(resumed_loss, "%.17g");
        p["uninterrupted"] = number(losses_[static_cast<std::size_t>(differs_at)], "%.17g");
        rep_.job(reports::make_finding("MODEL-RESUME", Status::kFail, layout_, p));
      }
    } else {
      params["detail"] = "ranks " + rank_list(all.failed()) + " could not read their shards back";
      rep_.job(reports::make_finding("MODEL-CKPT-READ", Status::kFail, o_.checkpoint_dir, params));
      rep_.job(reports::make_finding("MODEL-RESUME", Status::kSkip, layout_,
                                     {{"reason", "the checkpoint could not be read back"}}));
    }
    // Leave nothing behind: the shards, the manifest, then the run's directories.
    IoOutcome rm = remove_checkpoint_supervised(ckpt_.dir, rank_, timeout);
    for (auto& f : rm.findings) rep_.add(f);
    if (rm.ok)
      remove_checkpoint_supervised(o_.checkpoint_dir + "/hnprecheck-model-" + id_, rank_, timeout);
  }
}

void Phase::judge_loss() {
  if (rank_ != 0 || losses_.empty()) return;
  const std::size_t q = std::max<std::size_t>(1, losses_.size() / 4);
  double first = 0, last = 0;
  for (std::size_t i = 0; i < q; ++i) {
    first += losses_[i];
    last += losses_[losses_.size() - q + i];
  }
  first /= static_cast<double>(q);
  last /= static_cast<double>(q);
  const bool ok =
      losses_.size() >= 2 && std::isfinite(first) && std::isfinite(last) && last < first;
  auto f = reports::make_finding("MODEL-LOSS", ok ? Status::kPass : Status::kFail, layout_,
                                 {{"layout", layout_},
                                  {"first", number(first, "%.4f")},
                                  {"last", number(last, "%.4f")},
                                  {"steps", std::to_string(losses_.size())}});
  f.metrics["loss_first"] = {first, ""};
  f.metrics["loss_last"] = {last, ""};
  rep_.job(f);
  rep_.measure("model.loss", {{"step", "last"}}, losses_.back(), "", reports::Better::kNone);
}

// The equivalence probe (model_phase.h): this layout and the single-rank
// run, SGD in f64 for kProbeSteps, and the single-rank run again in one
// micro-batch to measure what summation order alone changes.
void Phase::reference() {
  ModelPhaseOptions probe = o_;
  probe.spec.size.dtype = stack::op::DType::kF64;
  probe.spec.optimizer = fw::OptimizerConfig{};
  probe.spec.optimizer.kind = fw::OptimizerKind::kSgd;
  probe.spec.optimizer.lr = kProbeLr;
  probe.spec.optimizer.momentum = 0;
  std::vector<double> par;
  {
    auto to = trainer_options(probe);
    to.same_batch_every_step = true;
    Trainer t(world_, to);
    for (int s = 0; s < kProbeSteps; ++s) {
      if (past_deadline(world_, deadline_)) break;
      par.push_back(t.step().loss);
    }
  }
  // Rank 0 trains the single-rank runs; the others wait for it (within the
  // deadline), so the phase ends together on every rank.
  std::int32_t go = 1;
  if (rank_ == 0 && !par.empty()) {
    comm::CommOptions solo;
    solo.rank = 0;
    solo.world = 1;
    comm::Communicator one(solo);
    auto single_run = [&](int micro_batches) {
      ModelPhaseOptions single = probe;
      single.layout = fw::Layout{};
      single.inject = {};
      single.group_links.clear();
      single.spec.size.micro_batches = micro_batches;
      auto to = trainer_options(single);
      to.same_batch_every_step = true;
      Trainer t(one, to);
      std::vector<double> out;
      for (std::size_t s = 0; s < par.size() && Clock::now() < deadline_; ++s)
        out.push_back(t.step().loss);
      return out;
    };
    const int mb = probe.spec.size.micro_batches;
    const std::vector<double> ref = single_run(mb);
    const std::vector<double> other = single_run(mb == 1 ? probe.spec.size.batch : 1);
    rep_.equivalence(ref, other, par);
  }
  comm::Options o;
  o.dtype = stack::op::DType::kI32;
  o.timeout =
      std::max(world_.timeout(),
               std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()) +
                   world_.timeout());
  comm::broadcast(world_, &go, 1, o);
}

}  // namespace

double equivalence_tolerance(stack::op::DType t) {
  return t == stack::op::DType::kF64 ? 1e-9 : 2e-4;
}

fw::Layout resolve_layout(const formats::ModelSpec& spec, int world_size, const std::string& source,
                          int line) {
  const int layout_line = line >= 0 ? line : spec.layout_line ? spec.layout_line : spec.line;
  const int size_line = line >= 0 ? line : spec.size_line ? spec.size_line : layout_line;
  fw::Layout l;
  if (spec.layout) {
    l = *spec.layout;
  } else {
    l.dp = world_size;
    // A mixture of experts spreads over every replica when it can.
    if (spec.size.experts > 0 && spec.size.experts % world_size == 0) l.ep = world_size;
  }
  try {
    l.fits(world_size);
  } catch (const fw::LayoutError& e) {
    throw compat::InputError(source, layout_line, 0, "model.layout", e.what());
  }
  try {
    spec.size.check_layout(l);
  } catch (const stack::model::ConfigError& e) {
    throw compat::InputError(source, size_line, 0, "model.size." + e.field(),
                             std::string(e.what()).substr(e.field().size() + 2));
  }
  return l;
}

ModelPhaseResult run_model_phase(comm::Communicator& world, const ModelPhaseOptions& options,
                                 Clock::time_point deadline) {
  if (!options.matrix) throw std::invalid_argument("model phase: no operator matrix");
  return Phase(world, options, deadline).run();
}

}  // namespace hn::probes::model
