#include "stack/l1_model/checkpoint.h"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "compat/json_input.h"

namespace hn::stack::model {

using physical::IoError;

namespace {

constexpr char kMagic[8] = {'H', 'N', 'C', 'K', 'P', 'T', '0', '1'};

void append(std::vector<std::byte>& out, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  out.insert(out.end(), b, b + n);
}

std::string dirname_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// A checkpoint lives on shared storage, so its JSON goes through the guarded
// entry point like any input (size, nesting); a malformed one is a
// CheckpointError, which the phase reports, not bad user input.
nlohmann::json parse_header(const std::string& text, const std::string& what) {
  try {
    return compat::parse_json_text(text, what);
  } catch (const compat::InputError& e) {
    throw CheckpointError(e.what());
  }
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::vector<std::byte> encode_shard(const TrainingState& s, int rank, const std::string& layout) {
  nlohmann::json h;
  h["rank"] = rank;
  h["layout"] = layout;
  h["step"] = s.step;
  h["optimizer_steps"] = s.optimizer_steps;
  std::uint64_t offset = 0;
  for (const auto& t : s.tensors) {
    const std::uint64_t bytes =
        static_cast<std::uint64_t>(t.value.numel()) * op::dtype_size(t.value.dtype());
    h["tensors"].push_back({{"name", t.name},
                            {"dtype", std::string(op::to_string(t.value.dtype()))},
                            {"shape", t.value.shape()},
                            {"offset", offset},
                            {"bytes", bytes}});
    offset += bytes;
  }
  const std::string header = h.dump();
  std::vector<std::byte> out;
  out.reserve(16 + header.size() + offset);
  append(out, kMagic, sizeof kMagic);
  const std::uint64_t len = header.size();
  append(out, &len, sizeof len);
  append(out, header.data(), header.size());
  for (const auto& t : s.tensors)
    append(out, t.value.data(),
           static_cast<std::size_t>(t.value.numel()) * op::dtype_size(t.value.dtype()));
  return out;
}

TrainingState decode_shard(const std::vector<std::byte>& bytes, int rank,
                           const std::string& layout) {
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw CheckpointError("not a checkpoint shard (bad magic)");
  std::uint64_t len;
  std::memcpy(&len, bytes.data() + 8, sizeof len);
  if (len > bytes.size() - 16) throw CheckpointError("shard header is truncated");
  nlohmann::json h;
  try {
    h = parse_header(std::string(reinterpret_cast<const char*>(bytes.data()) + 16, len),
                     "malformed shard header");
    if (h.at("rank").get<int>() != rank)
      throw CheckpointError("shard of rank " + std::to_string(h.at("rank").get<int>()) +
                            " read by rank " + std::to_string(rank));
    if (h.at("layout").get<std::string>() != layout)
      throw CheckpointError("shard written with layout " + h.at("layout").get<std::string>() +
                            ", resumed with " + layout);
    TrainingState s;
    s.step = h.at("step").get<long long>();
    s.optimizer_steps = h.at("optimizer_steps").get<long long>();
    const std::size_t payload = 16 + len;
    for (const auto& t : h.value("tensors", nlohmann::json::array())) {
      op::Tensor value(op::dtype_from_string(t.at("dtype").get<std::string>()),
                       t.at("shape").get<op::Shape>());
      const auto off = t.at("offset").get<std::uint64_t>(), n = t.at("bytes").get<std::uint64_t>();
      if (n != static_cast<std::uint64_t>(value.numel()) * op::dtype_size(value.dtype()) ||
          off > bytes.size() - payload || n > bytes.size() - payload - off)
        throw CheckpointError("tensor " + t.at("name").get<std::string>() + " is truncated");
      std::memcpy(value.data(), bytes.data() + payload + off, n);
      s.tensors.push_back({t.at("name").get<std::string>(), std::move(value)});
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(std::string("shard header is malformed: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw CheckpointError(std::string("shard header is malformed: ") + e.what());
  }
}

std::string sha256_hex(const std::vector<std::byte>& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    s += kHex[md[i] >> 4];
    s += kHex[md[i] & 15];
  }
  return s;
}

std::string manifest_json(const Manifest& m) {
  nlohmann::json j;
  j["format"] = "hnprecheck.checkpoint";
  j["version"] = 1;
  j["step"] = m.step;
  j["layout"] = m.layout;
  j["world"] = m.world;
  j["shards"] = nlohmann::json::array();
  for (const auto& s : m.shards)
    j["shards"].push_back(
        {{"rank", s.rank}, {"file", s.file}, {"bytes", s.bytes}, {"sha256", s.sha256}});
  return j.dump(2) + "\n";
}

Manifest parse_manifest(const std::string& text, const std::string& path) {
  try {
    auto j = parse_header(text, path + ": malformed manifest");
    if (j.at("format") != "hnprecheck.checkpoint" || j.at("version") != 1)
      throw CheckpointError(path + ": not a version 1 hnprecheck checkpoint manifest");
    Manifest m;
    m.step = j.at("step").get<long long>();
    m.layout = j.at("layout").get<std::string>();
    m.world = j.at("world").get<int>();
    for (const auto& s : j.at("shards"))
      m.shards.push_back({s.at("rank").get<int>(), s.at("file").get<std::string>(),
                          s.at("bytes").get<std::uint64_t>(), s.at("sha256").get<std::string>()});
    if (static_cast<int>(m.shards.size()) != m.world)
      throw CheckpointError(path + ": lists " + std::to_string(m.shards.size()) + " shards for " +
                            std::to_string(m.world) + " ranks");
    for (int r = 0; r < m.world; ++r)
      if (m.shards[static_cast<std::size_t>(r)].rank != r)
        throw CheckpointError(path + ": shard " + std::to_string(r) + " is listed out of order");
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(path + ": malformed manifest: " + e.what());
  }
}

std::string shard_file_name(int rank) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "shard-%05d.bin", rank);
  return buf;
}

void make_dirs(const std::string& dir, const physical::StepFn& step) {
  std::string path;
  std::size_t at = 0;
  while (at != std::string::npos) {
    at = dir.find('/', at + 1);
    path = dir.substr(0, at);
    if (path.empty()) continue;
    step("mkdir " + path);
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) throw IoError("mkdir", path, errno);
  }
}

void write_durable(const std::string& path, const std::vector<std::byte>& bytes,
                   const physical::StepFn& step) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  Fd f;
  step("open " + tmp);
  f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd < 0) throw IoError("open(O_CREAT)", tmp, errno);
  std::size_t done = 0;
  step("write " + tmp);
  while (done < bytes.size()) {
    ssize_t n =
        ::write(f.fd, bytes.data() + done, std::min<std::size_t>(bytes.size() - done, 1 << 20));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("write", tmp, errno);
    done += static_cast<std::size_t>(n);
  }
  step("fsync " + tmp);
  if (::fsync(f.fd) != 0) throw IoError("fsync", tmp, errno);
  step("close " + tmp);
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) throw IoError("close", tmp, errno);
  step("rename " + tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw IoError("rename", path, errno);
  const std::string dir = dirname_of(path);
  Fd d;
  step("fsync " + dir);
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd < 0) throw IoError("open(O_DIRECTORY)", dir, errno);
  if (::fsync(d.fd) != 0 && errno != EINVAL) throw IoError("fsync", dir, errno);
}

std::vector<std::byte> read_all(const std::string& path, std::uint64_t max_bytes,
                                const physical::StepFn& step) {
  Fd f;
  step("open " + path);
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw IoError("open", path, errno);
  std::vector<std::byte> out;
  step("read " + path);
  std::byte buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("read", path, errno);
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) throw IoError("read", path, EFBIG);
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

void remove_checkpoint(const std::string& dir, const physical::StepFn& step) {
  step("opendir " + dir);
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT) return;
    throw IoError("opendir", dir, errno);
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("shard-", 0) == 0 || n.rfind(kManifestName, 0) == 0) names.push_back(n);
  }
  ::closedir(d);
  for (const auto& n : names) {
    const std::string p = dir + "/" + n;
    step("unlink " + p);
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) throw IoError("unlink", p, errno);
  }
  step("rmdir " + dir);
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) throw IoError("rmdir", dir, errno);
}

}  // namespace hn::stack::model
