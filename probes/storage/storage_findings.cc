#include "probes/storage/storage_findings.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace hn::probes::storage {

using reports::Status;

std::string fmt_value(double v) {
  char buf[64];
  double a = std::fabs(v);
  int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string fmt_ms(double ns) {
  return fmt_value(ns / 1e6);
}

reports::Finding io_error_finding(const stack::physical::IoError& e, const std::string& path,
                                  const std::string& context) {
  const char* code = e.error() == ESTALE ? "STOR-MOUNT-STALE"
                     : e.error() == EIO  ? "STOR-MOUNT-IO-ERROR"
                                         : "STOR-MOUNT-ACCESS";
  std::string name = stack::physical::errno_name(e.error());
  reports::Params p{{"path", path},       {"op", context + e.op() + " " + e.path()},
                    {"file", e.path()},   {"errno", std::to_string(e.error())},
                    {"errno_name", name}, {"error", name + " (" + std::strerror(e.error()) + ")"}};
  return reports::make_finding(code, Status::kFail, path, p);
}

ProbeDir resolve_probe_dir(const formats::MountSpec& spec, const std::string& resolved_path,
                           const std::vector<stack::physical::MountEntry>& mounts,
                           const stack::physical::StepFn& step) {
  ProbeDir dir;
  dir.path = resolved_path;
  if (spec.probe_dir != spec.path) {
    try {
      dir.path = stack::physical::resolve_path(spec.probe_dir, step);
    } catch (const stack::physical::IoError& e) {
      if (e.error() == ESTALE || e.error() == EIO) throw;
      return {"", e.error(), nullptr};
    }
  }
  dir.mount = stack::physical::covering_mount(mounts, dir.path);
  return dir;
}

}  // namespace hn::probes::storage
