// The framework's pieces on their own: 1F1B's warm-up counts (Megatron's
// formula), parameter init and sharding, gradient buckets, the step timer;
// then on real ranks: the groups' collectives, MoE dispatch/combine and the
// replica check, against values computed here.
#include <catch2/catch.hpp>

#include <cstring>
#include <stdexcept>

#include "stack/l2_framework/grad_sync.h"
#include "stack/l2_framework/moe.h"
#include "stack/l2_framework/parameter.h"
#include "stack/l2_framework/pipeline.h"
#include "stack/l2_framework/process_groups.h"
#include "stack/l2_framework/replica_check.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::stack;
using namespace hn::stack::framework;

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

}  // namespace

TEST_CASE("pipeline: 1F1B warm-up is min(stages - stage - 1, micro-batches)") {
  CHECK(warmup_micro_batches(4, 0, 8) == 3);
  CHECK(warmup_micro_batches(4, 3, 8) == 0);
  CHECK(warmup_micro_batches(4, 1, 2) == 2);
  CHECK(warmup_micro_batches(1, 0, 4) == 0);
}

TEST_CASE("parameters: init is seeded by name, shards concatenate back") {
  op::Tensor a = init_normal(7, "layer0.w", {4, 6}, 1.0, op::DType::kF32);
  op::Tensor b = init_normal(7, "layer0.w", {4, 6}, 1.0, op::DType::kF32);
  op::Tensor c = init_normal(7, "layer1.w", {4, 6}, 1.0, op::DType::kF32);
  CHECK(a.to_f64() == b.to_f64());
  CHECK(a.to_f64() != c.to_f64());
  double sum = 0, sq = 0;
  op::Tensor big = init_normal(1, "x", {10000}, 2.0, op::DType::kF64);
  for (double v : big.to_f64()) sum += v, sq += v * v;
  CHECK(std::abs(sum / 10000) < 0.1);
  CHECK(std::abs(std::sqrt(sq / 10000) - 2.0) < 0.1);
  for (int dim : {0, 1}) {
    std::vector<op::Tensor> parts;
    for (int i = 0; i < 2; ++i) parts.push_back(shard(a, dim, 2, i));
    CHECK(parts[0].shape() == (dim == 0 ? op::Shape{2, 6} : op::Shape{4, 3}));
    CHECK(concat(parts, dim).to_f64() == a.to_f64());
  }
  CHECK(shard(a, 1, 2, 1).get(0) == a.get(3));  // row 0, column 3
  CHECK_THROWS_WITH(shard(a, 1, 4, 0), Catch::Contains("does not split into 4 blocks"));
}

TEST_CASE("step timer: rows keep their order and 'L2 other' makes them add up") {
  StepTimer t;
  t.begin_step();
  t.add("L4", "compute", 3, 0);
  t.add("L3", "allreduce dp", 2, 100);
  t.add("L4", "compute", 1, 0);
  StepTime s = t.end_step();
  REQUIRE(s.rows.size() == 3);
  CHECK(s.rows[0].ms == 4);
  CHECK(s.rows[0].calls == 2);
  CHECK(s.find("L3", "allreduce dp")->bytes == 100);
  CHECK(s.rows[2].what == "other");
  double sum = 0;
  for (const auto& r : s.rows) sum += r.ms;
  CHECK(sum >= s.total_ms);
  StepTime two = sum_steps({s, s});
  CHECK(two.find("L4", "compute")->ms == 8);
}

TEST_CASE("groups, MoE routing and the replica check on real ranks") {
  for (auto transport : {comm::TransportKind::kShm, comm::TransportKind::kTcp}) {
    INFO(to_string(transport));
    hn::test::RankSetup setup;
    setup.transport = transport;
    auto r = hn::test::run_ranks(4, setup, [](comm::Communicator& world) {
      Layout l = parse_layout("tp=2,dp=2,ep=2");
      StepTimer timer;
      timer.begin_step();
      ProcessGroups g = ProcessGroups::create(world, l, &timer);
      const int me = world.rank();
      // tp: allgather concatenates in member order; reduce_scatter sums blocks.
      op::Tensor mine =
          op::Tensor::from_values(op::DType::kF32, {1, 2}, {double(me), double(me) + 0.5});
      op::Tensor all = g.tp->allgather(mine);
      const int base = me - g.coords.tp;
      expect(all.to_f64() == std::vector<double>{double(base), base + 0.5, base + 1.0, base + 1.5},
             "tp allgather");
      op::Tensor full = op::Tensor::from_values(op::DType::kF32, {2, 1}, {1.0 * me, 10.0 * me});
      op::Tensor block = g.tp->reduce_scatter(full);
      const double want = g.coords.tp == 0 ? base + (base + 1.0) : 10.0 * (base + base + 1);
      expect(block.get(0) == want, "tp reduce_scatter");
      expect(timer.end_step().find("L3", "allgather tp") != nullptr, "timed as an L3 row");
      // ep: 4 experts over 2 ranks; token t of rank r goes to expert (t + r) % 4.
      std::vector<int> expert_of;
      op::Tensor x(op::DType::kF32, {5, 3});
      for (int t = 0; t < 5; ++t) {
        expert_of.push_back((t + me) % 4);
        for (int d = 0; d < 3; ++d) x.set(t * 3 + d, 100.0 * me + 10 * t + d);
      }
      Routing route(*g.ep, expert_of, 4);
      expect(route.local_experts() == 2 && route.first_local_expert() == 2 * g.coords.ep,
             "local experts");
      std::vector<op::Tensor> per_expert = route.dispatch(x);
      for (std::size_t e = 0; e < per_expert.size(); ++e)
        for (std::int64_t row = 0; row < per_expert[e].shape()[0]; ++row) {
          // Every row received belongs to this expert: recover its token.
          const double v = per_expert[e].get(row * 3);
          const int src_rank = static_cast<int>(v / 100),
                    t = static_cast<int>(v - 100 * src_rank) / 10;
          expect((t + src_rank) % 4 == route.first_local_expert() + static_cast<int>(e),
                 "dispatch");
        }
      // The experts double their rows; combine returns them to their tokens.
      for (auto& e : per_expert)
        for (std::int64_t i = 0; i < e.numel(); ++i) e.set(i, 2 * e.get(i));
      op::Tensor back = route.combine(per_expert);
      for (std::int64_t i = 0; i < x.numel(); ++i) expect(back.get(i) == 2 * x.get(i), "combine");
      // The replica check: identical parameters pass, one flipped bit is named.
      Parameter p;
      p.name = "w";
      p.value = init_normal(1, "w", {8}, 1.0, op::DType::kF32);
      auto ok = check_replicas(g, {&p}, {});
      expect(ok.size() == 1 && ok[0].diverged.empty(), "identical replicas");
      if (me == 3) static_cast<unsigned char*>(p.value.data())[0] ^= 1;
      auto bad = check_replicas(g, {&p}, {});
      expect(bad[0].members == g.dp->world_ranks(), "members");
      const bool mine_has_3 = g.dp->world_ranks()[1] == 3;
      expect(bad[0].diverged == (mine_has_3 ? std::vector<int>{1, 3} : std::vector<int>{}),
             "two replicas, two values: both named");
    });
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("grad sync: buckets by kind and size, and a gradient never made ready is an error") {
  hn::test::RankSetup setup;
  auto r = hn::test::run_ranks(2, setup, [](comm::Communicator& world) {
    ProcessGroups g = ProcessGroups::create(world, parse_layout("dp=2"), nullptr);
    std::vector<std::unique_ptr<Parameter>> ps;
    auto add = [&](const char* name, int n, Replicas k) {
      auto p = std::make_unique<Parameter>();
      p->name = name;
      p->value = op::Tensor(op::DType::kF32, {n});
      p->zero_grad();
      for (int i = 0; i < n; ++i) p->grad.set(i, world.rank() + 1);
      p->replicas = k;
      ps.push_back(std::move(p));
      return ps.back().get();
    };
    Parameter* a = add("a", 1000, Replicas::kData);      // 4000 bytes
    Parameter* b = add("b", 1000, Replicas::kData);      // same bucket
    Parameter* c = add("c", 10, Replicas::kExpertData);  // another kind
    Parameter* d = add("d", 2000, Replicas::kData);      // too big to join
    GradSyncOptions o;
    o.bucket_bytes = 8000;
    GradSync sync({a, b, c, d}, g, o);
    expect(sync.bucket_count() == 3, "3 buckets, got " + std::to_string(sync.bucket_count()));
    sync.start_step();
    sync.mark_ready(b);
    expect(a->grad.get(0) == world.rank() + 1, "a bucket waits for all its parameters");
    sync.mark_ready(a);
    expect(a->grad.get(0) == 3 && b->grad.get(999) == 3, "summed over dp once ready");
    sync.mark_ready(d);  // later bucket ready first: waits for the one before it
    expect(d->grad.get(0) == world.rank() + 1, "buckets go in order");
    sync.mark_ready(c);
    expect(c->grad.get(0) == 3 && d->grad.get(0) == 3, "then both");
    sync.finish();
    sync.start_step();
    sync.mark_ready(a);
    sync.mark_ready(b);
    try {
      sync.finish();
    } catch (const std::logic_error& e) {
      expect(std::string(e.what()).find("gradient of c never became ready") != std::string::npos,
             e.what());
      return;
    }
    throw std::runtime_error("finish() accepted a missing gradient");
  });
  CHECK(r.exit_code == 0);
}
