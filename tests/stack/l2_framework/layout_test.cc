#include "stack/l2_framework/layout.h"

#include <catch2/catch.hpp>
#include <set>

using hn::stack::framework::Coords;
using hn::stack::framework::GroupKind;
using hn::stack::framework::Layout;
using hn::stack::framework::LayoutError;
using hn::stack::framework::parse_layout;
using Groups = std::vector<std::vector<int>>;

namespace {

Layout make(int tp, int pp, int dp, int ep = 1) {
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.ep = ep;
  return l;
}

const GroupKind kAllKinds[] = {GroupKind::kTensor,     GroupKind::kPipeline,
                               GroupKind::kData,       GroupKind::kExpert,
                               GroupKind::kExpertData, GroupKind::kModelParallel};

}  // namespace

// The worked example: Megatron-LM parallel_state.RankGenerator, world 16,
// TP2 PP2 EP2, default order tp-cp-ep-dp-pp.
TEST_CASE("layout: Megatron's worked example, world 16 tp=2 pp=2 ep=2") {
  Layout l = parse_layout("tp=2,pp=2,ep=2", 16);
  REQUIRE(l == make(2, 2, 4, 2));
  CHECK(l.groups(GroupKind::kTensor) ==
        Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
  CHECK(l.groups(GroupKind::kData) ==
        Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
  CHECK(l.groups(GroupKind::kPipeline) ==
        Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
  CHECK(l.groups(GroupKind::kModelParallel) ==
        Groups{{0, 1, 8, 9}, {2, 3, 10, 11}, {4, 5, 12, 13}, {6, 7, 14, 15}});
  CHECK(l.groups(GroupKind::kExpert) ==
        Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
  CHECK(l.groups(GroupKind::kExpertData) ==
        Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
}

TEST_CASE("layout: groups partition the world, EP x expert-DP is exactly the DP group") {
  const Layout layouts[] = {make(1, 1, 1),    make(2, 1, 1),    make(1, 2, 1),
                            make(1, 1, 2, 2), make(2, 2, 2),    make(2, 1, 2),
                            make(1, 1, 4, 2), make(2, 3, 4, 2), make(4, 2, 6, 3)};
  for (const Layout& l : layouts) {
    INFO(l.to_string());
    for (GroupKind k : kAllKinds) {
      INFO(to_string(k));
      std::set<int> seen;
      auto groups = l.groups(k);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        CHECK(groups[g].size() == groups[0].size());
        for (std::size_t i = 0; i < groups[g].size(); ++i) {
          int r = groups[g][i];
          CHECK(seen.insert(r).second);
          CHECK(l.group_index(k, r) == static_cast<int>(g));
          CHECK(l.rank_in_group(k, r) == static_cast<int>(i));
          CHECK(l.group_of(k, r) == groups[g]);
          if (i > 0) CHECK(groups[g][i - 1] < r);
        }
      }
      CHECK(static_cast<int>(seen.size()) == l.world());
    }
    CHECK(l.groups(GroupKind::kTensor)[0].size() == static_cast<std::size_t>(l.tp));
    CHECK(l.groups(GroupKind::kPipeline)[0].size() == static_cast<std::size_t>(l.pp));
    CHECK(l.groups(GroupKind::kData)[0].size() == static_cast<std::size_t>(l.dp));
    CHECK(l.groups(GroupKind::kExpert)[0].size() == static_cast<std::size_t>(l.ep));
    CHECK(l.groups(GroupKind::kExpertData)[0].size() == static_cast<std::size_t>(l.dp / l.ep));
    for (int r = 0; r < l.world(); ++r) {
      Coords c = l.coords(r);
      // Megatron's default order: tp fastest, then dp, then pp.
      CHECK(r == c.tp + l.tp * (c.dp + l.dp * c.pp));
      CHECK(l.rank_of(c) == r);
      CHECK(c.dp == c.ep + l.ep * c.expert_dp);
      const auto data_group = l.group_of(GroupKind::kData, r);
      const std::set<int> dp(data_group.begin(), data_group.end());
      for (int e : l.group_of(GroupKind::kExpert, r)) CHECK(dp.count(e));
      for (int e : l.group_of(GroupKind::kExpertData, r)) CHECK(dp.count(e));
    }
  }
}

TEST_CASE("layout: the issue's layouts parse and print back") {
  const std::pair<const char*, Layout> cases[] = {
      {"dp=2", make(1, 1, 2)},           {"tp=2", make(2, 1, 1)},
      {"pp=2", make(1, 2, 1)},           {"dp=2,ep=2", make(1, 1, 2, 2)},
      {"tp=2,pp=2", make(2, 2, 1)},      {"tp=2,dp=2", make(2, 1, 2)},
      {"dp=4,ep=2", make(1, 1, 4, 2)},   {" ep = 2 , dp=4 ", make(1, 1, 4, 2)},
      {"tp=2,pp=2,dp=2", make(2, 2, 2)},
  };
  for (const auto& [text, want] : cases) {
    INFO(text);
    Layout l = parse_layout(text);
    CHECK(l == want);
    CHECK(parse_layout(l.to_string()) == l);
  }
  CHECK(parse_layout("tp=2", 8) == make(2, 1, 4));
  CHECK(parse_layout("tp=2,dp=1", 8) == make(2, 1, 1));  // an explicit dp is kept (fits() refuses)
}

TEST_CASE("layout: bad layouts name the numbers") {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const LayoutError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  using Catch::Contains;
  CHECK_THAT(message([] { make(2, 2, 2).fits(4); }),
             Contains("tp=2 x pp=2 x dp=2 = 8 ranks, but the job has 4"));
  CHECK_THAT(message([] { parse_layout("dp=4,ep=3"); }), Contains("ep=3 must divide dp=4"));
  CHECK_THAT(message([] { parse_layout("tp=3", 8); }),
             Contains("tp=3 x pp=1 = 3 does not divide the job's 8 ranks"));
  CHECK_THAT(message([] { parse_layout("tp=0"); }), Contains("tp=0 is not a whole number"));
  CHECK_THAT(message([] { parse_layout("tp=2x"); }), Contains("tp=2x is not a whole number"));
  CHECK_THAT(message([] { parse_layout("tp=-1"); }), Contains("tp=-1"));
  CHECK_THAT(message([] { parse_layout("cp=2"); }), Contains("unknown key 'cp'"));
  CHECK_THAT(message([] { parse_layout("tp=2,tp=2"); }), Contains("tp is given twice"));
  CHECK_THAT(message([] { parse_layout("tp2"); }), Contains("'tp2' is not KEY=N"));
  CHECK_THAT(message([] { parse_layout(""); }), Contains("layout is empty"));
  CHECK_THAT(message([] { parse_layout("tp=2,"); }), Contains("'' is not KEY=N"));
  CHECK_THAT(message([] { make(1, 1, 2).coords(2); }), Contains("rank 2 is outside layout"));
  Layout ok = make(2, 2, 2);
  CHECK_NOTHROW(ok.fits(8));
}
