// Env files and shell/Slurm scripts: what a launched program would see set,
// with the line each assignment starts on.
#include "compat/translate/shell_input.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

namespace {

std::vector<EnvEntry> script(const std::string& text) {
  return parse_shell_text(text, "job.sh", ShellMode::kScript);
}
// The same under `set -a`, where every assignment is exported: for tests of
// value syntax rather than of what is exported (lines are unchanged).
std::vector<EnvEntry> exported(const std::string& text) {
  return script("set -a; " + text);
}

// NAME=value@line, ~ dynamic; a conditional one lists its alternatives
// (NAME=a|b@line?, |- when some path leaves it unset).
std::string summary(const std::vector<EnvEntry>& es) {
  std::string s;
  for (const auto& e : es) {
    std::string v = e.value;
    if (e.conditional) {
      v.clear();
      for (const auto& a : e.alternatives) v += (v.empty() ? "" : "|") + a.value;
      if (e.maybe_unset) v += "|-";
    }
    s += e.name + "=" + v + "@" + std::to_string(e.line) + (e.dynamic ? "~" : "") +
         (e.conditional ? "?" : "") + " ";
  }
  return s;
}

void expect_error(const std::string& text, ShellMode mode, const std::string& where_what) {
  INFO(text);
  try {
    parse_shell_text(text, "job.sh", mode);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(where_what));
  }
}

}  // namespace

TEST_CASE("shell: export, plain and prefix assignments are recorded with their lines") {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"export A=1\n", "A=1@1 "},
      {"export A=1 B=2\n", "A=1@1 B=2@1 "},
      {"A=1\n", ""},  // a shell variable: never exported
      {"\n\nA=1 B=2 python train.py --lr=3\n", "A=1@3 B=2@3 "},
      {"NCCL_DEBUG=INFO srun -n 8 python x.py\n", "NCCL_DEBUG=INFO@1 "},
      {"export\tA=1;export B=2 && C=3 cmd || D=4 cmd\n", "A=1@1 B=2@1 C=3@1 D=4@1 "},
      {"A=1 | B=2 cmd\n", "B=2@1 "},
      {"declare -x A=1\ntypeset -x B=2\n", "A=1@1 B=2@2 "},
      {"env -u HOME -i A=1 B=2 python x.py\n", "A=1@1 B=2@1 "},
      {"if [ -n \"$X\" ]; then export A=1; else export A=2; fi\n", "A=1|2@1? "},
      {"while true; do B=3 cmd; done\n", "B=3@1 "},
      {"f() { export A=1; }\n", "A=1|-@1? "},  // set only if the function is called
      {"(export A=1)\n", "A=1@1 "},
      {"case $X in a) export A=1 ;; esac\n", "A=1|-@1? "},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(summary(script(c.text)) == c.expect);
  }
}

TEST_CASE("shell: things that are not environment settings are ignored") {
  const char* cases[] = {
      "echo A=1\n",                  // an argument, not an assignment
      "python x.py A=1\n",           // ditto
      "export -n A=1\n",             // un-export
      "local A=1\nreadonly B=2\n",   // shell variables only
      "declare C=3\n",               // not exported
      "for A in 1 2; do :; done\n",  // loop variable
      "export A\n",                  // exports nothing new
      "[ A=1 ]\n",                   // a test
      "\"A\"=1\n",                   // a quoted name is a command word
      "A+=1\n",                      // append: not a plain assignment
  };
  for (const char* c : cases) {
    INFO(c);
    CHECK(summary(script(c)).empty());
  }
}

TEST_CASE("shell: quoting forms") {
  struct Case {
    const char* text;
    const char* value;
    const char* raw;
  };
  const Case cases[] = {
      {"A='a b'\n", "a b", "'a b'"},
      {"A=\"a b\"\n", "a b", "\"a b\""},
      {"A=a\\ b\n", "a b", "a\\ b"},
      {"A=\"x\\\"y\\$z\\\\\"\n", "x\"y$z\\", "\"x\\\"y\\$z\\\\\""},
      {"A='it'\\''s'\n", "it's", "'it'\\''s'"},
      {"A=$'a\\tb\\n'\n", "a\tb\n", "$'a\\tb\\n'"},
      {"A=\"^\"docker,'lo'\n", "^docker,lo", "\"^\"docker,'lo'"},
      {"A=\"a#b\"#c\n", "a#b#c", "\"a#b\"#c"},
      {"A=a#b # comment\n", "a#b", "a#b"},
      {"A=''\n", "", "''"},
      {"A=\n", "", ""},
      {"A='x;y' B=1\n", "x;y", "'x;y'"},
      {"A=\"level0:NA;level1:ring\"\n", "level0:NA;level1:ring", "\"level0:NA;level1:ring\""},
      {"A=a=b\n", "a=b", "a=b"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto es = exported(c.text);
    REQUIRE(!es.empty());
    CHECK(es[0].name == "A");
    CHECK(es[0].value == c.value);
    CHECK(es[0].raw == c.raw);
    CHECK_FALSE(es[0].dynamic);
  }
}

TEST_CASE("shell: line continuations join lines, each value keeps its starting line") {
  CHECK(summary(exported("export \\\n  A=1 \\\n  B=2\nC=3\n")) == "A=1@2 B=2@3 C=3@4 ");
  CHECK(summary(exported("A=ab\\\ncd\n")) == "A=abcd@1 ");
  CHECK(summary(exported("A=\"ab\\\ncd\"\n")) == "A=abcd@1 ");
  CHECK(summary(exported("A='ab\ncd'\nB=1\n")) == "A=ab\ncd@1 B=1@3 ");
  CHECK(summary(exported("srun \\\n  --export=ALL \\\n  python x.py\nA=1\n")) == "A=1@4 ");
}

TEST_CASE("shell: comments are ignored, #SBATCH --export sets the batch job's environment") {
  std::string text =
      "#!/bin/bash\n"
      "#SBATCH --export=ALL,NCCL_DEBUG=TRACE\n"
      "#SBATCH --nodes=4\n"
      "# export A=commented\n"
      "   # export B=indented comment\n"
      "export C=1  # trailing comment\n";
  CHECK(summary(script(text)) == "NCCL_DEBUG=TRACE@2 C=1@6 ");
}

TEST_CASE("shell: here-document bodies are skipped") {
  CHECK(summary(script("cat > f <<EOF\nexport A=1\nEOF\nexport B=2\n")) == "B=2@4 ");
  CHECK(summary(exported("cat <<-'END'\n\texport A=1\n\tEND\nB=2\n")) == "B=2@4 ");
  CHECK(summary(exported("cat <<\"X\" > f; export A=1\nexport B=2\nX\nC=3\n")) == "A=1@1 C=3@4 ");
  CHECK(summary(script("python x.py 2>&1 >log.txt; A=1 cmd <in.txt\n")) == "A=1@1 ");
  CHECK(summary(exported("cat <<<\"A=1\"\nB=2\n")) == "B=2@2 ");
}

TEST_CASE("shell: variables set earlier in the input expand, run-time values are marked dynamic") {
  CHECK(summary(exported("IF=ens1f0\nexport NCCL_SOCKET_IFNAME=$IF\n")) ==
        "IF=ens1f0@1 NCCL_SOCKET_IFNAME=ens1f0@2 ");
  CHECK(summary(exported("X=1\nA=\"${X}0\"\n")) == "X=1@1 A=10@2 ");
  CHECK(summary(exported("A=${UNSET:-INFO}\n")) == "A=INFO@1 ");
  CHECK(summary(exported("X=\nA=${X:-4}\nB=${X-5}\n")) == "X=@1 A=4@2 B=@3 ");
  CHECK(summary(exported("local X=7\nA=$X\n")) == "X=7@1 A=7@2 ");  // set -a exports locals too
  auto dyn = exported(
      "A=$(hostname)\nB=`date`\nC=$((2*4))\nD=$SLURM_JOB_ID\nE=${X#y}\nF=$1\nG=${U:-$V}\n");
  REQUIRE(dyn.size() == 7);
  for (const auto& e : dyn) {
    INFO(e.name);
    CHECK(e.dynamic);
  }
  CHECK(dyn[0].value == "$(hostname)");
  CHECK(dyn[3].raw == "$SLURM_JOB_ID");
  CHECK(exported("B=$(hostname)\nA=\"x$B\"\n")[1].dynamic);
  CHECK(exported("A=cost$\n")[0].value == "cost$");
}

TEST_CASE("shell: unterminated quotes and substitutions are errors at the opening line") {
  expect_error("A=1\nB='abc\n\n", ShellMode::kScript, "job.sh:2: unterminated single quote");
  expect_error("B=\"abc\n", ShellMode::kScript, "job.sh:1: unterminated double quote");
  expect_error("\nB=$(hostname\n", ShellMode::kScript, "job.sh:2: unterminated $(");
  expect_error("B=`date\n", ShellMode::kScript, "job.sh:1: unterminated `");
  expect_error("B=${X\n", ShellMode::kScript, "job.sh:1: unterminated ${");
  expect_error("B=$'x\n", ShellMode::kScript, "unterminated $'");
  expect_error("export 1BAD=2\n", ShellMode::kScript,
               "job.sh:1: 1BAD: '1BAD=2' after export is not NAME=value");
  expect_error("export A-B=2\n", ShellMode::kScript, "job.sh:1");
}

TEST_CASE("env files: only assignments, comments and blank lines") {
  auto es = parse_shell_text("# comment\n\nA=1\nexport B='x y'\nC=\"q\" D=4\n", "a.env",
                             ShellMode::kEnvFile);
  CHECK(summary(es) == "A=1@3 B=x y@4 C=q@5 D=4@5 ");
  CHECK(summary(parse_shell_text("A=1\r\nB=2\r\n", "a.env", ShellMode::kEnvFile)) ==
        "A=1@1 B=2@2 ");
  expect_error("A=1\nthis is not\n", ShellMode::kEnvFile,
               "job.sh:2: expected NAME=value or export NAME=value, found 'this'");
  expect_error("A=1; B=2\n", ShellMode::kEnvFile, "job.sh:1: expected NAME=value, found ';'");
  expect_error("A=1 > f\n", ShellMode::kEnvFile, "job.sh:1: expected NAME=value, found '>'");
  expect_error("A = 1\n", ShellMode::kEnvFile, "found 'A'");
  expect_error("A='1\n", ShellMode::kEnvFile, "job.sh:1: unterminated single quote");
}
