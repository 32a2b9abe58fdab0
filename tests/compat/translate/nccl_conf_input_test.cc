// NCCL's configuration file as NCCL reads it (src/misc/param.cc), and the
// commands in scripts that write one.
#include "compat/translate/nccl_conf_input.h"

#include <catch2/catch.hpp>

#include "compat/translate/env_input.h"

using namespace hn::compat::translate;

namespace {
const EnvEntry* find(const std::vector<EnvEntry>& es, const std::string& name, int line) {
  for (const auto& e : es)
    if (e.name == name && e.line == line) return &e;
  return nullptr;
}
}  // namespace

TEST_CASE("nccl conf: KEY=VALUE lines, split at the first '=', nothing else interpreted") {
  EnvInput in = read_nccl_conf_text(
      "# comment\nNCCL_DEBUG=INFO\nno equals sign\nNCCL_IB_HCA==mlx5_0:1\r\n"
      "NCCL_SOCKET_IFNAME=\"eth0\" # not a comment\n=novalue\nNCCL_X=" +
          std::string(2000, 'v'),
      "nccl.conf");
  REQUIRE(in.entries.size() == 4);
  CHECK(in.entries[0].name == "NCCL_DEBUG");
  CHECK(in.entries[0].line == 2);
  CHECK(in.entries[1].value == "=mlx5_0:1");                 // '\r' stripped, the second '=' kept
  CHECK(in.entries[2].value == "\"eth0\" # not a comment");  // no quoting in NCCL's reader
  CHECK(in.entries[3].value.size() == 1023);                 // envValue[1024]
  CHECK_THAT(in.entries[0].context, Catch::Contains("the process environment wins"));
  CHECK(in.notes.empty());
}

TEST_CASE("nccl conf: detected by its name, under --format auto") {
  CHECK(names_nccl_conf("/etc/nccl.conf"));
  CHECK(names_nccl_conf("/root/.nccl.conf"));
  CHECK(names_nccl_conf("h100.nccl.conf"));
  CHECK(names_nccl_conf("\"$NCCL_CONF_FILE\""));
  CHECK_FALSE(names_nccl_conf("/etc/nccl.config"));
  CHECK_FALSE(names_nccl_conf("mynccl.conf"));
  CHECK(detect_format("/etc/nccl.conf", "NCCL_DEBUG=INFO\n") == InputFormat::kNcclConf);
  // Read as a script it would be "never exported": every line is in effect here.
  auto entries = parse_env_input("NCCL_DEBUG=INFO\n", "nccl.conf", InputFormat::kAuto);
  REQUIRE(entries.size() == 1);
  CHECK(input_format_from_string("nccl-conf") == InputFormat::kNcclConf);
}

TEST_CASE("nccl conf: echo, printf, tee and here-documents that write one") {
  const std::string script =
      "echo \"NCCL_DEBUG=WARN\" >> /etc/nccl.conf\n"
      "echo NCCL_A=1 > ~/.nccl.conf\n"
      "printf 'NCCL_B=2\\nNCCL_C=3\\n' >> /etc/nccl.conf\n"
      "echo NCCL_D=$IF | sudo tee -a /etc/nccl.conf\n"
      "echo NCCL_E=5 >> /tmp/other.conf\n"
      "# echo NCCL_F=6 >> /etc/nccl.conf\n"
      "cat > /etc/nccl.conf <<EOF\n"
      "NCCL_G=7\n"
      "EOF\n";
  std::vector<std::pair<int, std::string>> heredoc = {{8, "NCCL_G=7"}};
  auto w = nccl_conf_writes(script, "job.sh", heredoc);
  REQUIRE(find(w, "NCCL_DEBUG", 1));
  CHECK(find(w, "NCCL_DEBUG", 1)->value == "WARN");
  CHECK_THAT(find(w, "NCCL_DEBUG", 1)->context, Catch::Contains("written to /etc/nccl.conf"));
  CHECK(find(w, "NCCL_A", 2));
  CHECK(find(w, "NCCL_B", 3));
  CHECK(find(w, "NCCL_C", 3));
  REQUIRE(find(w, "NCCL_D", 4));
  CHECK(find(w, "NCCL_D", 4)->dynamic);  // the shell expands $IF when it runs
  CHECK_FALSE(find(w, "NCCL_E", 5));     // not NCCL's file
  CHECK_FALSE(find(w, "NCCL_F", 6));     // a comment
  CHECK(find(w, "NCCL_G", 8));
  CHECK(w.size() == 6);
  // Through the script reader: settings, not notes; an export of the same
  // name comes later in the list, so it wins as the environment does.
  EnvInput in =
      parse_env_input_full(script + "export NCCL_DEBUG=INFO\n", "job.sh", InputFormat::kScript);
  int debug = 0;
  for (const auto& e : in.entries)
    if (e.name == "NCCL_DEBUG") debug = e.line;
  CHECK(debug == 10);  // the last NCCL_DEBUG in the list is the export
  for (const auto& n : in.notes) CHECK(n.name != "NCCL_G");
}

TEST_CASE("nccl conf: a line longer than NCCL's line buffer is not scanned by regex") {
  // std::regex recurses per character; a 1 MiB echo into nccl.conf would
  // exhaust the stack. Past 4096 bytes the line is left to the net.
  const std::string line = "echo \"NCCL_X=" + std::string(1 << 20, 'v') + "\" >> /etc/nccl.conf\n";
  CHECK(nccl_conf_writes(line, "job.sh", {}).empty());
  // Through the script reader (which refuses a 1 MiB word outright), an 8 KiB
  // one is noted at its line.
  const std::string mid = "echo \"NCCL_X=" + std::string(8 << 10, 'v') + "\" >> /etc/nccl.conf\n";
  EnvInput in = parse_env_input_full(mid, "job.sh", InputFormat::kScript);
  bool noted = false;
  for (const auto& n : in.notes) noted = noted || n.name == "NCCL_X";
  CHECK(noted);  // reported, not silently dropped
}
