// Live and snapshot StorageSources.
#include "stack/l7_physical/storage_source.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "stack/l7_physical/source.h"

namespace hn::stack::physical {

namespace {

class LiveStorageSource final : public StorageSource {
 public:
  explicit LiveStorageSource(std::string proc_root) : path_(proc_root + "/self/mountinfo") {}

  std::vector<MountEntry> mounts() const override {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw SourceError("cannot read " + path_ + ": " + std::strerror(errno));
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_mountinfo(ss.str(), path_);
  }

 private:
  std::string path_;
};

class SnapshotStorageSource final : public StorageSource {
 public:
  explicit SnapshotStorageSource(std::vector<MountEntry> mounts) : mounts_(std::move(mounts)) {}
  std::vector<MountEntry> mounts() const override { return mounts_; }

 private:
  std::vector<MountEntry> mounts_;
};

}  // namespace

std::unique_ptr<StorageSource> make_live_storage_source(std::string proc_root) {
  return std::make_unique<LiveStorageSource>(std::move(proc_root));
}

std::unique_ptr<StorageSource> make_snapshot_storage_source(std::vector<MountEntry> mounts) {
  return std::make_unique<SnapshotStorageSource>(std::move(mounts));
}

}  // namespace hn::stack::physical
