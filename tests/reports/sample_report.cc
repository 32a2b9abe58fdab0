#include "tests/reports/sample_report.h"

namespace hn::reports::test {

namespace {
Finding finding(std::string code, Layer layer, Status status, std::string entity,
                std::string message, std::string remediation) {
  Finding f;
  f.code = std::move(code);
  f.layer = layer;
  f.status = status;
  f.entity = std::move(entity);
  f.message = std::move(message);
  f.remediation = std::move(remediation);
  return f;
}
}  // namespace

Report sample_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.command = "preflight";
  r.hostname = "node0";
  r.profile = "demo";
  r.started_unix_ms = 1714564800000;  // 2024-05-01T12:00:00.000Z
  r.finished_unix_ms = 1714564801500;

  Finding mtu = finding("HW-NIC-MTU", Layer::kL7, Status::kFail, "eth1",
                        "eth1 MTU is 1500, plane param0 expects 9000",
                        "Set it with `ip link set eth1 mtu 9000`");
  mtu.evidence = {{"mtu", "1500"}, {"expected", "9000"}, {"source", "/sys/class/net/eth1/mtu"}};
  mtu.metrics = {{"mtu", {1500, "bytes"}}};
  mtu.duration_ms = 1.25;

  Finding present = finding("HW-NIC-PRESENT", Layer::kL7, Status::kPass, "eth1",
                            "NIC eth1 of plane param0 is present", "");
  present.duration_ms = 0.5;

  Finding link = finding("COMM-LINK", Layer::kL3, Status::kWarn, "node0-node1",
                         "busbw 9.1 GB/s below the warn threshold 10 GB/s", "Check the plane.");
  link.metrics = {{"busbw", {9.1, "GB/s"}}, {"p99", {0.1 + 0.2, "ms"}}};
  link.duration_ms = 2500.75;

  Finding data = finding("DATA-READ", Layer::kL1, Status::kSkip, "/mnt/shared",
                         "dataset read: no dataset configured", "");

  Finding temp = finding("HW-TEMP", Layer::kL7, Status::kError, "cpu0",
                         "temperature below limit: cannot read hwmon",
                         "The check could not run; fix the cause above and re-run.");
  temp.evidence = {{"reason", "cannot read hwmon"}};

  r.findings = {mtu, present, link, data, temp};
  r.extra_json = {{"bench", R"({"rows":[{"size":1024,"busbw":1.5}]})"}};
  return r;
}

Finding tricky_finding() {
  Finding f;
  f.code = "HW-NIC-STATE";
  f.layer = Layer::kL7;
  f.status = Status::kFail;
  f.entity = "eth<1>&\"x\"'y'";
  f.message =
      "a & b < c > d \" e ' f ]]> tab\there\nnewline cr\r bell\x07 esc\x1b[31m bad\xff\xfe ok °C";
  f.remediation = "run `ip link set \"eth1\" up` && check <cable>";
  f.evidence = {{"raw<key>", "v&l\x01ue"}};
  f.metrics = {{"temp&c", {1e-9, "°C"}}};
  f.duration_ms = 3;
  return f;
}

}  // namespace hn::reports::test
