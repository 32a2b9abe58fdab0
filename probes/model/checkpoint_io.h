#pragma once
// One rank's checkpoint I/O on the shared mount, each call in a supervised
// worker (drivers/supervised_worker.h): a hung mount costs timeout_s and
// becomes MODEL-CKPT-HUNG naming the call; an error becomes
// MODEL-CKPT-IO-ERROR naming the operation, path and errno. Not collective:
// model_phase.cc exchanges the outcomes.
//
// The worker is forked from a rank that has threads (the rendezvous watch):
// it only makes file-system calls and writes to its pipe and to a shared
// anonymous mapping made before the fork (glibc's fork keeps malloc usable
// in the child), and it never touches the communicator.

#include <cstdint>
#include <string>
#include <vector>

#include "reports/finding.h"

namespace hn::probes::model {

struct IoOutcome {
  bool ok = false;
  double ms = 0;  // the calls themselves, measured in the worker
  std::uint64_t bytes = 0;
  std::vector<reports::Finding> findings;  // the failure, when !ok
};

// mkdir -p dir, then the shard file written durably (write_durable).
IoOutcome write_file_supervised(const std::string& dir, const std::string& file,
                                const std::vector<std::byte>& bytes, int rank, const char* phase,
                                double timeout_s);

struct ReadOutcome {
  IoOutcome io;
  std::string manifest;  // the manifest's text
  std::vector<std::byte> shard;
};

// Reads dir/MANIFEST.json (at most 1 MiB) and dir/<file> (at most max_bytes).
ReadOutcome read_checkpoint_supervised(const std::string& dir, const std::string& file,
                                       std::uint64_t max_bytes, int rank, double timeout_s);

// Removes a checkpoint directory (rank 0, after the resume check).
IoOutcome remove_checkpoint_supervised(const std::string& dir, int rank, double timeout_s);

}  // namespace hn::probes::model
