#include "reports/migration_csv.h"

namespace hn::reports {

namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string evidence(const Finding& f, const char* key) {
  auto it = f.evidence.find(key);
  return it == f.evidence.end() ? std::string() : it->second;
}

}  // namespace

std::string render_migration_csv(const Report& report) {
  std::string out = "File,Start Line,End Line,OP,Tips\r\n";
  for (const auto& f : report.findings) {
    if (f.status == Status::kPass || f.status == Status::kSkip) continue;
    if (!f.evidence.count("file") || !f.evidence.count("start") || !f.evidence.count("op"))
      continue;
    std::string tips = evidence(f, "class");
    tips += (tips.empty() ? "" : ": ") + f.message;
    if (!f.remediation.empty()) tips += " -> " + f.remediation;
    out += field(evidence(f, "file")) + "," + field(evidence(f, "start")) + "," +
           field(evidence(f, "end")) + "," + field(evidence(f, "op")) + "," + field(tips) + "\r\n";
  }
  return out;
}

}  // namespace hn::reports
