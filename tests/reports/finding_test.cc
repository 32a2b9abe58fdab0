#include "reports/finding.h"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace hn::reports;

namespace {
Finding make(std::string code, Layer layer, Status status, std::string entity = "e") {
  Finding f;
  f.code = std::move(code);
  f.layer = layer;
  f.status = status;
  f.entity = std::move(entity);
  return f;
}

std::vector<Finding> with_statuses(std::initializer_list<Status> statuses) {
  std::vector<Finding> v;
  for (Status s : statuses) v.push_back(make("X-Y", Layer::kL7, s));
  return v;
}
}  // namespace

TEST_CASE("status and layer names round-trip and unknown text is rejected by name") {
  for (Status s : {Status::kPass, Status::kWarn, Status::kFail, Status::kSkip, Status::kError})
    CHECK(status_from_string(to_string(s)) == s);
  for (int i = 1; i <= 7; ++i) {
    auto l = static_cast<Layer>(i);
    CHECK(layer_from_string(to_string(l)) == l);
    CHECK_FALSE(layer_title(l).empty());
  }
  CHECK(to_string(Layer::kL7) == "L7");
  CHECK(layer_title(Layer::kL7) == "physical");
  CHECK_THROWS_WITH(status_from_string("pass"), Catch::Contains("'pass'"));
  CHECK_THROWS_AS(layer_from_string("L8"), std::invalid_argument);
}

TEST_CASE("summarize counts each status") {
  auto v = with_statuses({Status::kPass, Status::kPass, Status::kWarn, Status::kFail, Status::kSkip,
                          Status::kError, Status::kError});
  Summary s = summarize(v);
  CHECK(s.pass == 2);
  CHECK(s.warn == 1);
  CHECK(s.fail == 1);
  CHECK(s.skip == 1);
  CHECK(s.error == 2);
  CHECK(s.total() == 7);
  CHECK(summarize({}).total() == 0);
}

TEST_CASE("exit code policy: FAIL 1, else ERROR 3, else WARN 1 only when strict, else 0") {
  struct Case {
    std::initializer_list<Status> statuses;
    int lenient, strict;
  };
  const Case cases[] = {
      {{}, 0, 0},
      {{Status::kPass, Status::kSkip}, 0, 0},
      {{Status::kPass, Status::kWarn}, 0, 1},
      {{Status::kWarn, Status::kError}, 3, 3},
      {{Status::kError, Status::kFail}, 1, 1},
      {{Status::kFail}, 1, 1},
      {{Status::kWarn, Status::kFail, Status::kError}, 1, 1},
  };
  for (const auto& c : cases) {
    auto v = with_statuses(c.statuses);
    INFO("findings: " << v.size());
    CHECK(exit_code_for(v, false) == c.lenient);
    CHECK(exit_code_for(v, true) == c.strict);
  }
}

TEST_CASE("sorted_for_report orders by layer, then worst status first, stably") {
  std::vector<Finding> in = {
      make("A-PASS", Layer::kL7, Status::kPass),   make("B-SKIP", Layer::kL1, Status::kSkip),
      make("C-FAIL", Layer::kL7, Status::kFail),   make("D-WARN", Layer::kL3, Status::kWarn),
      make("E-ERROR", Layer::kL7, Status::kError), make("F-PASS", Layer::kL1, Status::kPass),
      make("G-FAIL", Layer::kL7, Status::kFail),   make("H-WARN", Layer::kL7, Status::kWarn),
  };
  std::vector<std::string> codes;
  for (const auto& f : sorted_for_report(in)) codes.push_back(f.code);
  // Equal layer and status keep their input order (C before G).
  CHECK(codes == std::vector<std::string>{"F-PASS", "B-SKIP", "D-WARN", "E-ERROR", "C-FAIL",
                                          "G-FAIL", "H-WARN", "A-PASS"});
  CHECK(sorted_for_report({}).empty());
}
