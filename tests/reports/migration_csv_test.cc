#include <catch2/catch.hpp>

#include "reports/migration_csv.h"

using namespace hn::reports;

TEST_CASE("migration csv: header, one row per non-passing op finding, RFC 4180 quoting") {
  Report r;
  Finding pass{"OP-SUPPORTED",
               Layer::kL4,
               Status::kPass,
               "Add f32",
               "ok",
               "",
               {{"file", "m.onnx"}, {"start", "1"}, {"end", "1"}, {"op", "Add"}},
               {},
               0,
               ""};
  Finding fail{"OP-UNSUPPORTED-TYPE",
               Layer::kL4,
               Status::kFail,
               "Conv f32",
               "unsupported operator type Conv, \"x\"",
               "replace it",
               {{"file", "a,b.onnx"},
                {"start", "2"},
                {"end", "7"},
                {"op", "Conv"},
                {"class", "unsupported-op"}},
               {},
               0,
               ""};
  Finding other{"HW-TEMP", Layer::kL7, Status::kFail, "cpu", "hot", "cool it", {}, {}, 0, ""};
  r.findings = {pass, fail, other};
  CHECK(render_migration_csv(r) ==
        "File,Start Line,End Line,OP,Tips\r\n"
        "\"a,b.onnx\",2,7,Conv,\"unsupported-op: unsupported operator type Conv, \"\"x\"\" -> "
        "replace it\"\r\n");
}
