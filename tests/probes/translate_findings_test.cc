// The findings of a translation: which code and status each outcome becomes,
// and that invalid (--check) and needs-review findings name the variable, the
// value, the broken rule and what to set.
#include "probes/translate_findings.h"

#include <catch2/catch.hpp>

#include "compat/translate/shell_input.h"

namespace tr = hn::compat::translate;
using hn::reports::Finding;
using hn::reports::Status;

namespace {

const tr::RuleBook& book() {
  static const tr::RuleBook b = tr::RuleBook::load();
  return b;
}

// --check --to `to` when `from` is empty, else a translation.
std::vector<Finding> findings(const std::string& env, const std::string& from,
                              const std::string& to) {
  tr::RuleSet rs = from.empty() ? book().for_check(to) : book().for_translation(from, to);
  auto entries = tr::parse_shell_text(env, "c.env", tr::ShellMode::kEnvFile);
  return hn::probes::translation_findings(tr::translate(entries, rs, book(), tr::Context{}));
}

const Finding& about(const std::vector<Finding>& fs, const std::string& entity) {
  for (const auto& f : fs)
    if (f.entity == entity) return f;
  FAIL("no finding about " << entity);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("translate findings: --check fails a value the rules would change, naming the fix") {
  auto fs = findings("HCCL_RDMA_TC=106\nHCCL_RDMA_TIMEOUT=25\nHCCL_RDMA_RETRY_CNT=0\n", "", "hccl");
  const Finding& tc = about(fs, "HCCL_RDMA_TC");
  CHECK(tc.code == "COMM-PARAM-INVALID");
  CHECK(tc.status == Status::kFail);
  CHECK(tc.message ==
        "HCCL_RDMA_TC=106 (c.env:1) is not valid for hccl: 106 is not a multiple of 4, which "
        "HCCL_RDMA_TC must be; the nearest valid setting is HCCL_RDMA_TC=104");
  CHECK(tc.remediation ==
        "Set HCCL_RDMA_TC=104, or another value hccl accepts: [0, 255], multiples of 4.");
  const Finding& timeout = about(fs, "HCCL_RDMA_TIMEOUT");
  CHECK(timeout.code == "COMM-PARAM-INVALID");
  CHECK(timeout.status == Status::kFail);
  CHECK(timeout.message ==
        "HCCL_RDMA_TIMEOUT=25 (c.env:2) is not valid for hccl: 25 is outside HCCL_RDMA_TIMEOUT's "
        "range [5, 20]; the nearest valid setting is HCCL_RDMA_TIMEOUT=20");
  CHECK(timeout.remediation == "Set HCCL_RDMA_TIMEOUT=20, or another value hccl accepts: [5, 20].");
  const Finding& retry = about(fs, "HCCL_RDMA_RETRY_CNT");
  CHECK(retry.code == "COMM-PARAM-INVALID");
  CHECK(retry.status == Status::kFail);
  CHECK_THAT(retry.message, Catch::Contains("0 is outside HCCL_RDMA_RETRY_CNT's range [1, 7]"));
  CHECK_THAT(retry.message, Catch::EndsWith("HCCL_RDMA_RETRY_CNT=1"));
}

TEST_CASE("translate findings: a valid or only re-spelled value stays PASS") {
  auto fs = findings("HCCL_RDMA_TC=132\nHCCL_RDMA_TIMEOUT=0x14\n", "", "hccl");
  CHECK(about(fs, "HCCL_RDMA_TC").code == "COMM-PARAM-VALID");
  CHECK(about(fs, "HCCL_RDMA_TC").status == Status::kPass);
  CHECK(about(fs, "HCCL_RDMA_TIMEOUT").code == "COMM-PARAM-CONVERTED");  // 0x14 is 20
  CHECK(about(fs, "HCCL_RDMA_TIMEOUT").status == Status::kPass);
}

TEST_CASE("translate findings: translation keeps clamping and rounding the target side") {
  auto fs = findings("NCCL_IB_TC=106\nNCCL_IB_TIMEOUT=23\n", "nccl", "hccl");
  CHECK(about(fs, "NCCL_IB_TC").code == "COMM-PARAM-CONVERTED");
  CHECK(about(fs, "NCCL_IB_TC").status == Status::kPass);
  CHECK(about(fs, "NCCL_IB_TIMEOUT").code == "COMM-PARAM-CLAMPED");
  CHECK(about(fs, "NCCL_IB_TIMEOUT").status == Status::kWarn);
}

TEST_CASE("translate findings: implausible sizes and out-of-range sources need review") {
  auto check = findings("HCCL_BUFFSIZE=8388608\n", "", "hccl");
  const Finding& buf = about(check, "HCCL_BUFFSIZE");
  CHECK(buf.code == "COMM-PARAM-REVIEW");
  CHECK(buf.status == Status::kFail);
  CHECK_THAT(buf.message, Catch::StartsWith("HCCL_BUFFSIZE=8388608 (c.env:1) needs review: "
                                            "8388608 MB is above the plausible maximum"));
  CHECK_THAT(buf.message, Catch::Contains("this looks like bytes"));
  CHECK_THAT(buf.remediation, Catch::Contains("HCCL_BUFFSIZE is in MB"));

  auto negative = findings("NCCL_BUFFSIZE=-1\n", "nccl", "hccl");
  const Finding& neg = about(negative, "NCCL_BUFFSIZE");
  CHECK(neg.code == "COMM-PARAM-REVIEW");
  CHECK(neg.status == Status::kFail);
  CHECK(neg.message ==
        "NCCL_BUFFSIZE=-1 (c.env:1) needs review: NCCL_BUFFSIZE=-1 is outside nccl's own range "
        "[1, inf); fix the source value first");
  CHECK(neg.evidence.at("result") == "(not written)");

  auto retries = findings("NCCL_SOCKET_RETRY_CNT=-3\n", "nccl", "hccl");
  const Finding& retry = about(retries, "NCCL_SOCKET_RETRY_CNT");
  CHECK(retry.code == "COMM-PARAM-REVIEW");
  CHECK(retry.status == Status::kFail);
  CHECK_THAT(retry.message, Catch::Contains("outside nccl's own range [1, inf)"));
  CHECK_THAT(retry.message, !Catch::Contains("times"));  // no retry budget made of -3 retries
}
