#include "compat/env_file.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/support/temp_dir.h"

using namespace hn::compat;

TEST_CASE("env file: assignments, export, quotes, comments, last one wins") {
  EnvFile f = parse_env_text(
      "# job environment\n"
      "\n"
      "NCCL_SOCKET_IFNAME==eth1\n"
      "export HCCL_SOCKET_IFNAME=^eth   # trailing comment\n"
      "GLOO_SOCKET_IFNAME=\"eth1,eth2\"\n"
      "OMPI_MCA_btl_tcp_if_include='10.10.0.0/24'\n"
      "EMPTY=\n"
      "ESCAPED=\"a \\\"b\\\" \\$c \\\\\"\r\n"
      "  \tINDENTED=x#y\n"
      "NCCL_SOCKET_IFNAME=ib\n",
      "job.env");
  REQUIRE(f.entries.size() == 7);
  CHECK(f.find("NCCL_SOCKET_IFNAME")->value == "ib");
  CHECK(f.find("NCCL_SOCKET_IFNAME")->line == 10);
  CHECK(f.find("HCCL_SOCKET_IFNAME")->value == "^eth");
  CHECK(f.find("HCCL_SOCKET_IFNAME")->line == 4);
  CHECK(f.find("GLOO_SOCKET_IFNAME")->value == "eth1,eth2");
  CHECK(f.find("OMPI_MCA_btl_tcp_if_include")->value == "10.10.0.0/24");
  CHECK(f.find("EMPTY")->value.empty());
  CHECK(f.find("ESCAPED")->value == "a \"b\" $c \\");
  CHECK(f.find("INDENTED")->value == "x#y");
  CHECK(f.find("MISSING") == nullptr);
  CHECK(parse_env_text("A='$HOME'\n", "x").find("A")->value == "$HOME");
}

TEST_CASE("env file: malformed lines are InputErrors naming file:line") {
  struct Bad {
    const char* text;
    int line;
    const char* what;
  };
  const Bad cases[] = {
      {"A=1\nNCCL_SOCKET_IFNAME eth1\n", 2, "unexpected ' ' in the key"},
      {"A=1\nB=2\nNOEQUALS\n", 3, "missing '='"},
      {"1A=x\n", 1, "expected KEY=VALUE"},
      {"=x\n", 1, "expected KEY=VALUE"},
      {"A=\"open\n", 1, "unterminated double quote"},
      {"A='open\n", 1, "unterminated single quote"},
      {"A=b c\n", 1, "unexpected text after the value"},
      {"A=$HOME/x\n", 1, "'$' expansion is not supported"},
      {"A=\"${X}\"\n", 1, "'$' expansion is not supported"},
      {"A=`hostname`\n", 1, "command substitution"},
      {"A=x;B=y\n", 1, "shell operator ';'"},
      {"A=x\\\n", 1, "line continuation"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    try {
      parse_env_text(c.text, "job.env");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.file() == "job.env");
      CHECK(e.line() == c.line);
      CHECK_THAT(e.what(), Catch::Contains(c.what));
      CHECK_THAT(e.what(), Catch::StartsWith("job.env:" + std::to_string(c.line) + ":"));
    }
  }
}

TEST_CASE("env file: load from disk, a missing file is an InputError") {
  hn::test::TempDir dir;
  std::string path = dir.write("a.env", "export X=1\n");
  CHECK(load_env_file(path).find("X")->value == "1");
  CHECK_THROWS_AS(load_env_file(dir.path() + "/none.env"), InputError);
}
