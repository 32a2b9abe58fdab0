#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "stack/l7_physical/live_readers.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::physical;
using namespace hn::stack::physical::detail;

TEST_CASE("read_text trims trailing whitespace and reports failure as absent", "[sysfs_files]") {
  hn::test::TempDir dir;
  CHECK(read_text(dir.write("a", "mlx5_core\n")) == "mlx5_core");
  CHECK(read_text(dir.write("b", "")) == "");
  CHECK(read_text(dir.write("c", "  keep leading \n\n")) == "  keep leading");
  CHECK_FALSE(read_text(dir.path() + "/missing").has_value());
  // A read that fails after open (EISDIR here, EINVAL on a sysfs attribute the
  // driver does not implement) is absent too.
  std::filesystem::create_directory(dir.path() + "/d");
  CHECK_FALSE(read_text(dir.path() + "/d").has_value());
}

TEST_CASE("read_integer accepts only a whole decimal number", "[sysfs_files]") {
  hn::test::TempDir dir;
  CHECK(read_integer(dir.write("a", "100000\n")) == 100000);
  CHECK(read_integer(dir.write("b", "-1\n")) == -1);
  CHECK_FALSE(read_integer(dir.write("c", "12 kB\n")).has_value());
  CHECK_FALSE(read_integer(dir.write("d", "\n")).has_value());
  CHECK_FALSE(read_integer(dir.path() + "/missing").has_value());
}

TEST_CASE("read_required throws SourceError naming the path", "[sysfs_files]") {
  hn::test::TempDir dir;
  CHECK(read_required(dir.write("a", "x\n")) == "x\n");
  CHECK_THROWS_AS(read_required(dir.path() + "/missing"), SourceError);
  CHECK_THROWS_WITH(read_required(dir.path() + "/missing"),
                    Catch::Contains("/missing") && Catch::Contains("No such file"));
}

TEST_CASE("count_cpulist", "[sysfs_files]") {
  CHECK(count_cpulist("0") == 1);
  CHECK(count_cpulist("0-3,8-11\n") == 8);
  CHECK(count_cpulist("0-63") == 64);
  CHECK(count_cpulist("0,2,4-5") == 4);
  CHECK(count_cpulist("") == 0);  // a memory-only NUMA node
  CHECK_FALSE(count_cpulist("3-1").has_value());
  CHECK_FALSE(count_cpulist("a-b").has_value());
  CHECK_FALSE(count_cpulist("0,,1").has_value());
  CHECK_FALSE(count_cpulist("-1").has_value());
}

TEST_CASE("meminfo_kib reads /proc and per-node formats", "[sysfs_files]") {
  const char* proc =
      "MemTotal:       131071000 kB\nMemFree:  1 kB\nMemAvailable:   120000000 kB\n"
      "HugePages_Total:       0\n";
  CHECK(meminfo_kib(proc, "MemTotal") == 131071000u);
  CHECK(meminfo_kib(proc, "MemAvailable") == 120000000u);
  CHECK(meminfo_kib(proc, "HugePages_Total") == 0u);
  CHECK_FALSE(meminfo_kib(proc, "Mem").has_value());
  CHECK_FALSE(meminfo_kib(proc, "SwapTotal").has_value());
  CHECK(meminfo_kib("Node 1 MemFree: 5 kB\nNode 1 MemTotal:       65535000 kB\n", "MemTotal") ==
        65535000u);
}

TEST_CASE("cpuinfo_value finds the first key", "[sysfs_files]") {
  const char* text =
      "processor\t: 0\nmodel\t\t: 106\nmodel name\t: Xeon Gold\n\n"
      "processor\t: 1\nmodel name\t: other\n";
  CHECK(cpuinfo_value(text, "model name") == "Xeon Gold");
  CHECK(cpuinfo_value(text, "model") == "106");
  CHECK_FALSE(cpuinfo_value(text, "Hardware").has_value());
}

TEST_CASE("looks_like_pci_address", "[sysfs_files]") {
  CHECK(looks_like_pci_address("0000:3b:00.0"));
  CHECK(looks_like_pci_address("0001:af:1f.7"));
  CHECK_FALSE(looks_like_pci_address("virtio0"));
  CHECK_FALSE(looks_like_pci_address("0000:3b:00"));
  CHECK_FALSE(looks_like_pci_address("0000:3b:00.8"));
  CHECK_FALSE(looks_like_pci_address("pci0000:00"));
  CHECK_FALSE(looks_like_pci_address("0000:0g:00.0"));
}

TEST_CASE("natural_less orders embedded numbers by value", "[sysfs_files]") {
  std::vector<std::string> v = {"thermal_zone10", "thermal_zone2", "thermal_zone1", "hwmon0",
                                "nvidia10",       "nvidia9",       "davinci1"};
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  CHECK(v == std::vector<std::string>{"davinci1", "hwmon0", "nvidia9", "nvidia10", "thermal_zone1",
                                      "thermal_zone2", "thermal_zone10"});
  CHECK_FALSE(natural_less("a", "a"));
  CHECK(natural_less("a", "ab"));
  CHECK(natural_less("temp2_input", "temp10_input"));
}
