#include "stack/l6_netplane/nic_counters.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "stack/l7_physical/source.h"

namespace hn::stack::netplane {

namespace {

std::optional<std::uint64_t> read_counter(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(buf, &end, 10);
  if (errno != 0 || end == buf) return std::nullopt;
  return v;
}

class LiveCounters : public NicCounterSource {
 public:
  explicit LiveCounters(std::string root) : root_(std::move(root)) {}
  NicCounters read() const override {
    DIR* d = opendir(root_.c_str());
    if (!d) throw physical::SourceError("cannot list " + root_ + ": " + std::strerror(errno));
    std::vector<std::string> names;
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    closedir(d);
    NicCounters out;
    for (const auto& nic : names) {
      const std::string stats = root_ + "/" + nic + "/statistics/";
      auto rx = read_counter(stats + "rx_bytes"), tx = read_counter(stats + "tx_bytes");
      if (rx && tx) out[nic] = {*rx, *tx};
    }
    return out;
  }

 private:
  std::string root_;
};

class FixedCounters : public NicCounterSource {
 public:
  explicit FixedCounters(NicCounters c) : c_(std::move(c)) {}
  NicCounters read() const override { return c_; }

 private:
  NicCounters c_;
};

}  // namespace

std::unique_ptr<NicCounterSource> make_live_nic_counters(std::string sysfs_net) {
  return std::make_unique<LiveCounters>(std::move(sysfs_net));
}

std::unique_ptr<NicCounterSource> make_snapshot_nic_counters(NicCounters fixed) {
  return std::make_unique<FixedCounters>(std::move(fixed));
}

NicCounters nic_counters_from_links(const std::vector<physical::Link>& links) {
  NicCounters out;
  for (const auto& l : links) out[l.name] = {l.rx_bytes, l.tx_bytes};
  return out;
}

NicCounters counter_delta(const NicCounters& before, const NicCounters& after) {
  NicCounters out;
  for (const auto& [nic, a] : after) {
    auto it = before.find(nic);
    NicBytes b = it == before.end() ? NicBytes{} : it->second;
    out[nic] = {a.rx >= b.rx ? a.rx - b.rx : 0, a.tx >= b.tx ? a.tx - b.tx : 0};
  }
  return out;
}

}  // namespace hn::stack::netplane
