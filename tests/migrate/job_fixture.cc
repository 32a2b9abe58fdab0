#include "tests/migrate/job_fixture.h"

#include <catch2/catch.hpp>

#include "compat/text_file.h"

namespace hn::test {

std::string example_file(const std::string& relative) {
  return std::string(HN_SOURCE_DIR) + "/examples/migrate/" + relative;
}

JobFixture::JobFixture() : script(compat::read_text_file(example_file("fixed/train.sbatch"))) {}

void JobFixture::edit(const std::string& from, const std::string& to) {
  auto at = script.find(from);
  REQUIRE(at != std::string::npos);
  script.replace(at, from.size(), to);
}

migrate::Job JobFixture::resolve() {
  dir.write("train.sbatch", script);
  std::string manifest =
      "version = 1\nname = \"t\"\n[launch]\nscript = \"train.sbatch\"\n"
      "[model]\nfile = \"" +
      model +
      "\"\n"
      "[target]\nprofile = \"" +
      profile +
      "\"\nbackend = \"example-npu\"\n"
      "local_port_range = \"32768 60999\"\n" +
      target_extra + "\n" + tables + "\n";
  if (target_extra.find("reserved_ports") == std::string::npos)
    manifest.insert(manifest.find("local_port_range"), "reserved_ports = \"60000-60031\"\n");
  if (tables.find("[storage]") == std::string::npos)
    manifest += "[storage]\ncheckpoint_size = \"180GiB\"\n";
  options.manifest = dir.write("job.toml", manifest);
  return migrate::resolve_job(options);
}

std::vector<std::string> codes(const migrate::Concern& c) {
  std::vector<std::string> out;
  for (const auto& i : c.items())
    out.push_back(i.finding.code + " " + std::string(reports::to_string(i.finding.status)) + " " +
                  i.finding.entity);
  return out;
}

const reports::Finding& finding(const migrate::Concern& c, const std::string& code) {
  for (const auto& i : c.items())
    if (i.finding.code == code) return i.finding;
  FAIL("no " << code << " finding in " << c.key());
  throw;
}

}  // namespace hn::test
