#pragma once
// Jobs for the concern tests: the example's fixed job (examples/migrate/fixed),
// whose six concerns are ready, with one fault injected by editing its script
// or its manifest, resolved in a temporary directory.
#include <map>
#include <string>

#include "migrate/concern.h"
#include "migrate/job.h"
#include "tests/support/temp_dir.h"

namespace hn::test {

std::string example_file(const std::string& relative);  // under examples/migrate/

class JobFixture {
 public:
  JobFixture();
  // The fixed job's script; edit before resolve().
  std::string script;
  // Extra lines of the manifest's [target] table and whole extra tables.
  std::string target_extra;
  std::string tables;
  std::string model = example_file("fixed/gpt_block.onnx");
  std::string profile = example_file("cluster.yaml");
  migrate::JobOptions options;

  // Replaces `from` (which must occur) in the script.
  void edit(const std::string& from, const std::string& to);
  // Writes a file next to the manifest and returns its path.
  std::string write(const std::string& name, const std::string& content) {
    return dir.write(name, content);
  }
  migrate::Job resolve();

  TempDir dir;
};

// "CODE STATUS entity" for each finding of a concern, in order.
std::vector<std::string> codes(const migrate::Concern& c);
// The first finding with this code, or a failed test.
const reports::Finding& finding(const migrate::Concern& c, const std::string& code);

}  // namespace hn::test
