// The option helpers shared by the commands: --timeout becomes a deadline in
// whole milliseconds, never zero.
#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "preflight/command.h"

namespace po = boost::program_options;

namespace {
std::chrono::milliseconds timeout_of(const std::string& text) {
  po::options_description d;
  hn::preflight::add_timeout_option(d, 30);
  std::vector<std::string> args = {"--timeout=" + text};
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  return hn::preflight::timeout_from(vm);
}
}  // namespace

TEST_CASE("options: --timeout is whole milliseconds, rounded up, at least 1 ms") {
  using std::chrono::milliseconds;
  CHECK(timeout_of("30") == milliseconds(30000));
  CHECK(timeout_of("0.001") == milliseconds(1));
  CHECK(timeout_of("0.0015") == milliseconds(2));  // rounded up, not down
  CHECK(timeout_of("2.5") == milliseconds(2500));
  CHECK(timeout_of("86400") == milliseconds(86400000));
  // 0.0001 used to pass and truncate to a 0 ms deadline.
  CHECK_THROWS_WITH(timeout_of("0.0001"),
                    Catch::Contains("--timeout") && Catch::Contains("at least 1 ms"));
  CHECK_THROWS_AS(timeout_of("0"), hn::compat::InputError);
  CHECK_THROWS_AS(timeout_of("-1"), hn::compat::InputError);
  CHECK_THROWS_AS(timeout_of("86401"), hn::compat::InputError);
  CHECK_THROWS_AS(timeout_of("nan"), hn::compat::InputError);
  CHECK_THROWS_AS(timeout_of("inf"), hn::compat::InputError);
}
