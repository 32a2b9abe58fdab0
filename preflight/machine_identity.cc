#include "preflight/machine_identity.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hn::preflight {

namespace {

namespace fs = std::filesystem;

// Bounded reads: these are small kernel files, but nothing here may stall
// or balloon on a strange one.
std::string read_small(const fs::path& p, std::size_t max = 4096) {
  std::ifstream in(p);
  if (!in) return "";
  std::string s(max, '\0');
  in.read(s.data(), static_cast<std::streamsize>(max));
  s.resize(static_cast<std::size_t>(in.gcount()));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  for (int i = 0; i < 200 && std::getline(in, line); ++i)
    for (const char* key : {"model name", "Hardware"})
      if (line.rfind(key, 0) == 0) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
  return "";
}

nlohmann::json nics() {
  nlohmann::json out = nlohmann::json::array();
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator("/sys/class/net", ec)) {
    // A NIC backed by a device (PCI, virtio): bridges, veths and tunnels
    // have none and come and go with the job.
    if (!fs::exists(e.path() / "device", ec)) continue;
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const fs::path dir = fs::path("/sys/class/net") / name;
    nlohmann::json n = {{"name", name}, {"driver", ""}, {"speed_mbps", nullptr}};
    const fs::path drv = fs::read_symlink(dir / "device" / "driver", ec);
    if (!ec) n["driver"] = drv.filename().string();
    ec.clear();
    // speed reads EINVAL while the link is down; -1 for "unknown" on virtio.
    const std::string speed = read_small(dir / "speed", 64);
    try {
      const long v = std::stol(speed);
      if (v > 0) n["speed_mbps"] = v;
    } catch (const std::exception&) {
    }
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

nlohmann::json machine_identity() {
  struct utsname u {};
  std::string host, kernel;
  if (uname(&u) == 0) {
    host = u.nodename;
    kernel = u.release;
  }
  return {{"host", host}, {"cpu", cpu_model()}, {"kernel", kernel}, {"nics", nics()}};
}

}  // namespace hn::preflight
