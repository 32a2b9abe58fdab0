#pragma once
// Checkpoints of the bundled model on (shared) storage.
//
// Layout of one checkpoint directory:
//   shard-<rank>.bin   one per rank: its TrainingState (encode_shard)
//   MANIFEST.json      written last, atomically, by rank 0 once every shard
//                      is durable: format, step, layout, world, and per
//                      shard its file, size and SHA-256
// A directory without a manifest, or whose shards do not match it, is never
// taken for a checkpoint: that is how a half-written one is told apart.
//
// The file functions may block as long as the file system does (a hung NFS
// or FUSE mount): call them only in a process a supervisor can kill
// (drivers/supervised_worker.h). `step` names each call before it is made so
// the supervisor can say which one hung. They throw physical::IoError with
// the operation, the path and errno. Decoding throws CheckpointError.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "stack/l1_model/trainer.h"
#include "stack/l7_physical/fs_ops.h"

namespace hn::stack::model {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<std::byte> encode_shard(const TrainingState& s, int rank, const std::string& layout);
// Throws CheckpointError for a truncated or foreign file, or one written by
// another rank or layout.
TrainingState decode_shard(const std::vector<std::byte>& bytes, int rank,
                           const std::string& layout);

std::string sha256_hex(const std::vector<std::byte>& bytes);

struct ShardEntry {
  int rank = 0;
  std::string file;  // relative to the checkpoint directory
  std::uint64_t bytes = 0;
  std::string sha256;
};

struct Manifest {
  long long step = 0;
  std::string layout;
  int world = 0;
  std::vector<ShardEntry> shards;  // one per rank, in rank order
};

std::string manifest_json(const Manifest& m);
// Throws CheckpointError naming what is missing or malformed.
Manifest parse_manifest(const std::string& text, const std::string& path);

std::string shard_file_name(int rank);
inline constexpr const char* kManifestName = "MANIFEST.json";

// Creates `dir` and its missing parents (mkdir -p).
void make_dirs(const std::string& dir, const physical::StepFn& step);
// Writes bytes to path durably and atomically: a temporary name in the same
// directory, write, fsync, rename, fsync of the directory.
void write_durable(const std::string& path, const std::vector<std::byte>& bytes,
                   const physical::StepFn& step);
// Reads a whole file (at most max_bytes; more is an IoError with EFBIG).
std::vector<std::byte> read_all(const std::string& path, std::uint64_t max_bytes,
                                const physical::StepFn& step);
// Removes a checkpoint directory: its shards, manifest and leftovers of
// interrupted writes, then the directory. Missing is fine.
void remove_checkpoint(const std::string& dir, const physical::StepFn& step);

}  // namespace hn::stack::model
