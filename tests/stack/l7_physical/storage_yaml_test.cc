#include "stack/l7_physical/storage_yaml.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/yaml_input.h"
#include "stack/l7_physical/storage_source.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::physical;

TEST_CASE("the mount table round-trips through YAML, escapes and all") {
  std::string path = std::string(HN_FIXTURE_DIR) + "/mountinfo/escapes.txt";
  auto mounts = parse_mountinfo(hn::test::read_file(path), path);
  YAML::Emitter out;
  out << mounts_to_yaml(mounts);
  auto back =
      mounts_from_yaml(hn::compat::load_yaml_text(out.c_str(), "s.yaml"), "s.yaml", "storage");
  CHECK(back == mounts);
  auto live = make_live_storage_source()->mounts();
  YAML::Emitter out2;
  out2 << mounts_to_yaml(live);
  CHECK(mounts_from_yaml(hn::compat::load_yaml_text(out2.c_str(), "l"), "l", "storage") == live);
}

TEST_CASE("hand-written mount tables need only path and fstype") {
  auto m = mounts_from_yaml(hn::compat::load_yaml_text(
                                "mounts:\n  - {path: /mnt/a, fstype: nfs4, source: 'f:/e'}\n", "f"),
                            "f", "storage");
  REQUIRE(m.size() == 1);
  CHECK(m[0].root == "/");
  CHECK(m[0].mount_options.empty());
  CHECK_THROWS_WITH(mounts_from_yaml(hn::compat::load_yaml_text("mounts:\n  - {path: /a}\n", "f"),
                                     "f", "storage"),
                    Catch::Contains("storage.mounts[0]") && Catch::Contains("fstype"));
  CHECK_THROWS_WITH(
      mounts_from_yaml(hn::compat::load_yaml_text("mounts:\n  - {path: a, fstype: x}\n", "f"), "f",
                       "storage"),
      Catch::Contains("absolute"));
  CHECK_THROWS_AS(mounts_from_yaml(hn::compat::load_yaml_text(
                                       "mounts:\n  - {path: /a, fstype: x, flavour: y}\n", "f"),
                                   "f", "storage"),
                  hn::compat::InputError);
}
