// Issue 18's hostile input files through the real binary, on every command
// that reads them: each must be exit 2 naming the file (and where), within
// seconds. Before the guards these hung past --timeout with memory growing
// (`[a],`), crashed with SIGSEGV (deep TOML), grew past 1.5 GB (an alias
// bomb), exited 3 without the file's name (a JSON number overflow) or were
// read with the wrong size cap.
#include <catch2/catch.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::TempDir;

namespace {

const std::string kFixtures = HN_FIXTURE_DIR;

// A bound well under the default --timeout: a reader that loops is killed
// (exit -1) and fails the test.
hn::test::ProcessResult cli(std::vector<std::string> args) {
  return hn::test::run_hnprecheck(std::move(args), 20);
}

void check_input_error(const hn::test::ProcessResult& r, const std::string& where,
                       const std::string& what) {
  INFO(r.err.substr(0, 2000));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(where) && Catch::Contains(what));
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE(
    "hostile input: the 4-byte stray-comma profile is exit 2 on every YAML reader and not a hang") {
  TempDir dir;
  const std::string bad = dir.write("bad.yaml", "[a],");
  const std::string where = bad + ":1:4";
  const std::string what = "unexpected ','";
  const std::string snap = kFixtures + "/snapshots/netplane/roce-a.yaml";
  const std::string profile = kFixtures + "/profiles/roce-cluster.yaml";
  check_input_error(cli({"node", "--profile", bad, "--timeout", "5"}), where, what);
  check_input_error(cli({"node", "--snapshot", bad, "--timeout", "5"}), where, what);
  check_input_error(cli({"diff", snap, bad}), where, what);
  check_input_error(cli({"consistency", "--profile", profile, snap, bad}), where, what);
  const std::string ops = dir.write("ops.txt", "aten::add f32\n");
  check_input_error(cli({"ops", ops, "--matrix", bad}), where, what);
  check_input_error(cli({"ops", bad, "--format", "yaml", "--backend", "reference-cpu"}), where,
                    what);
  const std::string env = dir.write("job.env", "NCCL_IB_TIMEOUT=20\n");
  check_input_error(cli({"translate", "--from", "nccl", "--to", "hccl", "--profile", bad, env}),
                    where, what);
  check_input_error(cli({"translate", "--from", "nccl", "--to", "hccl", "--format", "k8s", bad}),
                    where, what);
}

TEST_CASE(
    "hostile input: ten thousand nested brackets in a --rules file is exit 2 and not SIGSEGV") {
  TempDir dir;
  const std::string rules = dir.write("deep.toml", "library = \"x\"\na = " + repeat("[", 10000));
  const std::string env = dir.write("job.env", "NCCL_IB_TIMEOUT=20\n");
  check_input_error(cli({"translate", "--from", "nccl", "--to", "hccl", "--rules", rules, env}),
                    rules + ":2:", "nested more than 100 levels");
}

TEST_CASE("hostile input: 8 MiB of open brackets in a profile is refused at once") {
  TempDir dir;
  const std::string deep = dir.write("deep.yaml", std::string(8 << 20, '['));
  check_input_error(cli({"node", "--profile", deep, "--timeout", "5"}), deep + ":1:101",
                    "nested more than 100 levels");
}

TEST_CASE("hostile input: a 470-byte alias bomb in a Kubernetes manifest is exit 2") {
  TempDir dir;
  std::string bomb =
      "apiVersion: v1\nkind: Pod\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'i'; ++c, ++prev)
    bomb += std::string(1, c) + ": &" + c + " [" + repeat(std::string("*") + prev + ", ", 8) + "*" +
            prev + "]\n";
  const std::string path = dir.write("job.yaml", bomb);
  check_input_error(cli({"translate", "--from", "nccl", "--to", "hccl", path}), path + ":",
                    "expand to more than");
}

TEST_CASE("hostile input: a JSON number that overflows a double is exit 2 naming the trace") {
  TempDir dir;
  const std::string trace = dir.write(
      "trace.json", "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"ts\": 1e400}]}");
  check_input_error(cli({"ops", trace, "--backend", "reference-cpu"}), trace + ":2:", "'1e400'");
}

TEST_CASE("hostile input: op lists are held to 64 MiB and not the 2 GiB model cap") {
  TempDir dir;
  // Sparse: 64 MiB of zeros and a newline cost no disk.
  const std::string path = dir.path() + "/big.txt";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f);
    std::fseek(f, (64 << 20), SEEK_SET);
    std::fputc('\n', f);
    std::fclose(f);
  }
  check_input_error(cli({"ops", path, "--format", "text", "--backend", "reference-cpu"}), path,
                    "the limit is 64 MiB");
  check_input_error(cli({"ops", path, "--format", "yaml", "--backend", "reference-cpu"}), path,
                    "the limit is 64 MiB");
}

TEST_CASE("hostile input: a NUL byte is refused alike by node --env and translate") {
  TempDir dir;
  const std::string env = dir.write("nul.env", std::string("NCCL_SOCKET_IFNAME=eth\0"
                                                           "0\n",
                                                           24));
  check_input_error(cli({"node", "--env", env, "--timeout", "5"}), env + ":1:23", "a NUL byte");
  check_input_error(cli({"translate", "--from", "nccl", "--to", "hccl", env}), env + ":1:23",
                    "a NUL byte");
  // The message itself never carries the raw byte.
  auto r = cli({"translate", "--from", "nccl", "--to", "hccl", env});
  CHECK(r.err.find('\0') == std::string::npos);
}

TEST_CASE("hostile input: malformed YAML says where and what with the offending text") {
  TempDir dir;
  const std::string bad = dir.write("bad.yaml", "version: 1\ncluster: \"a\\qb\"\n");
  auto r = cli({"node", "--profile", bad, "--timeout", "5"});
  check_input_error(r, bad + ":2:", "malformed YAML: unknown escape character");
  CHECK_THAT(r.err, Catch::Contains("(at '"));
}

TEST_CASE(
    "hostile input: JSON nested ten thousand deep is exit 2 naming the file in gate and migrate") {
  // Well-formed, so only the guard refuses it: without it the parser reads
  // it and the reader fails later ("must be an object"), or worse.
  TempDir dir;
  const std::string deep = dir.write("deep.json", repeat("[", 10000) + repeat("]", 10000));
  const std::string where = deep + ":1:101";
  const std::string what = "nested more than 100 levels deep";
  const std::string examples = std::string(HN_SOURCE_DIR) + "/examples/migrate";
  const std::vector<std::string> migrate = {"migrate", "--script",
                                            examples + "/legacy/train.sbatch", "--profile",
                                            examples + "/cluster.yaml"};
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  // A certificate as gate's run and as migrate's evidence.
  check_input_error(cli({"gate", "baseline", "--out", dir.path() + "/base.json", deep}), where,
                    what);
  check_input_error(cli(with(migrate, {"--certificate", deep})), where, what);
  // A baseline, and a node report handed to migrate as evidence.
  const std::string run = dir.write("run.json", "{}");
  check_input_error(cli({"gate", "--baseline", deep, run}), where, what);
  check_input_error(cli(with(migrate, {"--node-report", deep})), where, what);
}

TEST_CASE("hostile input: env files: not UTF-8, a byte-order mark, control bytes in errors") {
  TempDir dir;
  const std::string latin = dir.write("latin.env", "NCCL_DEBUG=INFO\nNCCL_X=caf\xe9\n");
  check_input_error(cli({"node", "--env", latin}),
                    latin + ":2:11: ", "a byte that is not UTF-8 (0xE9)");
  const std::string bom = dir.write("bom.env", "\xef\xbb\xbfNCCL_DEBUG=INFO\n");
  check_input_error(cli({"node", "--env", bom}), bom + ":1:1: ", "byte-order mark");
  // A line with ESC and a file name with a newline: escaped, never raw.
  const std::string esc = dir.write("esc.env", "NCCL_DEBUG=INFO\nbad\x1b[2Jline here\n");
  auto r = cli({"node", "--env", esc});
  check_input_error(r, esc + ":2: ", "'bad\\x1b[2Jline'");
  CHECK(r.err.find('\x1b') == std::string::npos);
  r = cli({"node", "--env", dir.path() + "/no\nsuch\x1b"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/no\\x0asuch\\x1b: cannot open") != std::string::npos);
  CHECK(r.err.find('\x1b') == std::string::npos);
}
