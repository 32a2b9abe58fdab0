// The model on one rank (a world of one, no threads): the loss falls, steps
// are deterministic, a saved state restores bit for bit, the data is
// seeded and sharded without overlap, and a matrix that lacks an operator
// stops the trainer before any step with the `ops` code and words.
#include "stack/l1_model/trainer.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include "compat/builtin_ops.h"
#include "stack/l1_model/checkpoint.h"
#include "stack/l3_comm/communicator.h"
#include "stack/l4_operator/graph.h"

using namespace hn::stack;
namespace compat = hn::compat;
using model::Trainer;
using model::TrainerOptions;

namespace {

comm::CommOptions solo() {
  comm::CommOptions o;
  o.rank = 0;
  o.world = 1;
  return o;
}

TrainerOptions options(const compat::OpMatrix& m = compat::builtin_matrix("reference-cpu")) {
  TrainerOptions o;
  o.matrix = &m;
  o.seed = 3;
  return o;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("trainer: one rank, the loss falls from about ln(vocab)") {
  for (int experts : {0, 4}) {
    INFO("experts " << experts);
    comm::Communicator world(solo());
    TrainerOptions o = options();
    o.model.experts = experts;
    Trainer t(world, o);
    std::vector<double> losses;
    for (int s = 0; s < 12; ++s) losses.push_back(t.step().loss);
    CHECK(std::abs(losses[0] - std::log(64.0)) < 1.0);
    CHECK(losses.back() < losses.front() * 0.9);
    CHECK(t.steps_done() == 12);
  }
}

TEST_CASE("trainer: steps are deterministic and a restored state continues bit for bit") {
  comm::Communicator world(solo());
  for (auto kind : {framework::OptimizerKind::kAdam, framework::OptimizerKind::kSgd}) {
    TrainerOptions o = options();
    o.optimizer.kind = kind;
    Trainer a(world, o);
    for (int s = 0; s < 3; ++s) a.step();
    // Through the checkpoint encoding, as resume does.
    auto bytes = model::encode_shard(a.state(), 0, "tp=1,pp=1,dp=1");
    std::vector<double> uninterrupted;
    for (int s = 0; s < 3; ++s) uninterrupted.push_back(a.step().loss);
    Trainer b(world, o);
    b.restore(model::decode_shard(bytes, 0, "tp=1,pp=1,dp=1"));
    CHECK(b.steps_done() == 3);
    for (int s = 0; s < 3; ++s)
      CHECK(same_bits(b.step().loss, uninterrupted[static_cast<std::size_t>(s)]));
    // A different seed is a different run.
    TrainerOptions other = o;
    other.seed = 4;
    Trainer c(world, other);
    Trainer d(world, o);
    CHECK_FALSE(same_bits(c.step().loss, d.step().loss));
  }
}

TEST_CASE("trainer: restoring another model's state names the tensor") {
  comm::Communicator world(solo());
  Trainer a(world, options());
  TrainerOptions bigger = options();
  bigger.model.hidden = 64;
  Trainer b(world, bigger);
  CHECK_THROWS_WITH(b.restore(a.state()), Catch::Contains("does not match embed.tok"));
  auto state = a.state();
  state.tensors.pop_back();
  CHECK_THROWS_WITH(a.restore(state), Catch::Contains("checkpoint holds"));
}

TEST_CASE("trainer: a matrix without gelu fails before any step, in the words of `ops`") {
  compat::OpMatrix m = compat::builtin_matrix("reference-cpu");
  std::erase_if(m.entries, [](const compat::OpMatrixEntry& e) { return e.name == "gelu"; });
  m.backend = "no-gelu";
  comm::Communicator world(solo());
  try {
    Trainer t(world, options(m));
    FAIL("the trainer was built");
  } catch (const op::UnsupportedOpError& e) {
    CHECK(std::string(e.code()) == "OP-UNSUPPORTED-TYPE");
    CHECK(e.params().at("op") == "gelu");
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("unsupported operator type gelu on no-gelu; graph mlp_fwd"));
  }
}

TEST_CASE("data: seeded, the same global batch in every layout, shards disjoint") {
  model::ModelConfig c;
  model::SyntheticData d(c, 9), again(c, 9), other(c, 10);
  CHECK(d.sequence(3, 5) == again.sequence(3, 5));
  CHECK(d.sequence(3, 5) != other.sequence(3, 5));
  CHECK(d.sequence(3, 5) != d.sequence(4, 5));
  // dp=2 with 2 micro-batches covers the same sequences as one rank with 2.
  std::multiset<std::vector<double>> one, two;
  auto rows = [&](const model::MicroBatch& mb, std::multiset<std::vector<double>>& into) {
    auto v = mb.ids.to_f64();
    for (std::size_t i = 0; i < v.size(); i += static_cast<std::size_t>(c.seq))
      into.insert(std::vector<double>(v.begin() + static_cast<long>(i),
                                      v.begin() + static_cast<long>(i) + c.seq));
  };
  for (int m = 0; m < c.micro_batches; ++m) {
    rows(d.micro_batch(0, 0, 1, m), one);
    for (int r = 0; r < 2; ++r) rows(d.micro_batch(0, r, 2, m), two);
  }
  CHECK(one == two);
  CHECK(one.size() == static_cast<std::size_t>(c.batch));
  // Labels are the next tokens.
  auto mb = d.micro_batch(1, 0, 1, 0);
  auto seq = d.sequence(1, 0);
  for (int i = 0; i < c.seq; ++i) {
    CHECK(mb.ids.get(i) == seq[static_cast<std::size_t>(i)]);
    CHECK(mb.labels.get(i) == seq[static_cast<std::size_t>(i) + 1]);
  }
}
