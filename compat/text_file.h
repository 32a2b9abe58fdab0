#pragma once
// Reads a whole user-supplied file (profile, snapshot, env file, manifest,
// script, rule table, matrix, op list, trace, ONNX model, token file). Every
// reader of user input goes through here, so each one gets the same guards:
//  * only a regular file is read (symlinks to one are fine): a FIFO would
//    block forever, /dev/zero would never end, a directory is a mistake. The
//    file is opened O_NONBLOCK and checked with fstat before any read, so
//    opening a FIFO with no writer cannot hang either;
//  * at most max_bytes are read ("file too large" beyond that), so a huge
//    file is refused instead of exhausting memory;
//  * open and read failures are reported, never ignored.
// Throws InputError naming the path and the reason. Never blocks on the file.

#include <cstddef>
#include <string>
#include <string_view>

namespace hn::compat {

// Limit for every hand-written or captured input: far above any real profile,
// snapshot or env file, far below what would hurt a node.
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;  // 64 MiB
// Limit for launch files (env files, job scripts, manifests): the largest real
// one in tests/corpus/launch is 24 KB, and Kubernetes stores no object above
// etcd's 1.5 MiB request limit. The shell reader keeps several copies of what
// it reads, so this limit is what holds its worst case inside the memory
// budget of docs/security.md.
inline constexpr std::size_t kMaxLaunchFileBytes = std::size_t{4} << 20;  // 4 MiB
// Limit for model inventories (ONNX with embedded weights, profiler traces):
// protobuf cannot parse a message of 2 GiB or more anyway.
inline constexpr std::size_t kMaxModelBytes = std::size_t{2047} << 20;  // 2047 MiB

std::string read_text_file(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

// A limit as error messages name it: "4 MiB" when whole MiB, else "N bytes".
std::string limit_text(std::size_t bytes);

// The first n bytes of path (fewer when it is shorter), with the same guards:
// for choosing a reader, and so a limit, before the whole file is read.
std::string read_file_head(const std::string& path, std::size_t n);

// Throws InputError naming the line and column of the first NUL byte. No text
// input (profile, snapshot, env file, script, manifest, rule table, op list)
// can hold one: an environment value cannot (execve's strings end at NUL),
// YAML, JSON and TOML forbid it, and C strings would silently stop there.
// Every text reader calls it at its entry point, so they agree.
void reject_nul_bytes(std::string_view text, const std::string& source);

}  // namespace hn::compat
