// NCCL_ALGO and HCCL_ALGO: parsing each grammar form, and what maps.
#include "compat/translate/algo_grammar.h"

#include <catch2/catch.hpp>

using namespace hn::compat::translate;

TEST_CASE("algo: NCCL forms parse case-insensitively into canonical names") {
  auto g = parse_nccl_algo("ring");
  REQUIRE(g.size() == 1);
  CHECK(g[0].function.empty());
  CHECK(g[0].algos == std::vector<std::string>{"Ring"});
  g = parse_nccl_algo("^nvls,COLLNETDIRECT");
  CHECK(g[0].exclude);
  CHECK(g[0].algos == std::vector<std::string>{"NVLS", "CollnetDirect"});
  g = parse_nccl_algo("ring;AllReduce:tree,ring;broadcast:^pat");
  REQUIRE(g.size() == 3);
  CHECK(g[1].function == "allreduce");
  CHECK(g[1].algos.size() == 2);
  CHECK(g[2].exclude);
  for (const char* bad : {"", "Rign", "allreduce:", "alltoall:ring", "ring;;tree", "^"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_nccl_algo(bad), std::invalid_argument);
  }
}

TEST_CASE("algo: HCCL forms parse and print back") {
  for (const char* ok :
       {"level0:NA;level1:ring", "level0:NA;level1:H-D_R;level2:NHR",
        "allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise", "level1:NB"}) {
    INFO(ok);
    CHECK(format_hccl_algo(parse_hccl_algo(ok)) == ok);
  }
  CHECK(format_hccl_algo(parse_hccl_algo("level0:NA;level1:RING")) == "level0:NA;level1:ring");
  struct Bad {
    const char* text;
    const char* why;
  };
  for (const Bad& b :
       {Bad{"", "expected"}, Bad{"level0:ring;level1:ring", "level0 accepts only NA"},
        Bad{"level1:tree", "unknown HCCL algorithm 'tree'"}, Bad{"level0:NA", "has no level1"},
        Bad{"level3:ring", "level must be 0, 1 or 2"}, Bad{"level1:ring;level1:NB", "given twice"},
        Bad{"level1:pairwise", "only valid for alltoall"},
        Bad{"bcast=level1:ring", "unknown HCCL op 'bcast'"},
        Bad{"level1:ring/alltoall=level1:pairwise", "each needs op="},
        Bad{"ring", "is not levelN"}}) {
    INFO(b.text);
    CHECK_THROWS_WITH(parse_hccl_algo(b.text), Catch::Contains(b.why));
  }
}

TEST_CASE("algo: only ring maps, by name") {
  struct Case {
    const char* nccl;
    const char* hccl;
    size_t unmapped;
  };
  const Case cases[] = {
      {"Ring", "level0:NA;level1:ring", 0},
      {"allreduce:ring", "allreduce=level0:NA;level1:ring", 0},
      {"allgather:ring;allreduce:ring",
       "allreduce=level0:NA;level1:ring/allgather=level0:NA;level1:ring", 0},
      {"ring;allreduce:tree", "allgather=level0:NA;level1:ring/reducescatter=level0:NA;level1:ring",
       1},
      {"broadcast:ring", "", 1},
      {"Tree", "", 1},
      {"Ring,Tree", "", 1},
      {"^Tree", "", 1},
      {"NVLS;allreduce:PAT", "", 2},
  };
  for (const auto& c : cases) {
    INFO(c.nccl);
    AlgoConversion r = nccl_algo_to_hccl(parse_nccl_algo(c.nccl));
    CHECK(r.value == c.hccl);
    CHECK(r.unmapped.size() == c.unmapped);
  }
  AlgoConversion back = hccl_algo_to_nccl(parse_hccl_algo("level0:NA;level1:ring"));
  CHECK(back.value == "Ring");
  back = hccl_algo_to_nccl(
      parse_hccl_algo("allreduce=level0:NA;level1:ring/allgather=level0:NA;level1:NB"));
  CHECK(back.value == "allreduce:Ring");
  CHECK(back.unmapped == std::vector<std::string>{"allgather=level0:NA;level1:NB"});
  back = hccl_algo_to_nccl(parse_hccl_algo("level0:NA;level1:ring;level2:NHR"));
  CHECK(back.value.empty());
}
