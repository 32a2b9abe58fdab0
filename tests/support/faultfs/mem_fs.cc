#include "tests/support/faultfs/mem_fs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hn::test::faultfs {

namespace {

struct Node {
  mode_t mode = 0;
  nlink_t nlink = 1;
  ino_t ino = 0;
  std::vector<char> data;
  std::map<std::string, std::shared_ptr<Node>> children;
  timespec atime{}, mtime{}, ctime{};
};

struct State {
  std::mutex mu;
  std::shared_ptr<Node> root;
  Faults* faults = nullptr;
  std::uint64_t max_bytes = 1ull << 30, used = 0, files = 0;
  ino_t next_ino = 2;
};
State g;

timespec now() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return t;
}

std::shared_ptr<Node> make_node(mode_t mode) {
  auto n = std::make_shared<Node>();
  n->mode = mode;
  n->ino = g.next_ino++;
  n->atime = n->mtime = n->ctime = now();
  if (S_ISDIR(mode)) n->nlink = 2;
  return n;
}

std::shared_ptr<Node> lookup(const char* path) {
  std::shared_ptr<Node> cur = g.root;
  std::string p(path ? path : "");
  size_t pos = 0;
  while (pos < p.size()) {
    while (pos < p.size() && p[pos] == '/') ++pos;
    if (pos >= p.size()) break;
    size_t end = p.find('/', pos);
    std::string name = p.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? p.size() : end;
    if (!S_ISDIR(cur->mode)) return nullptr;
    auto it = cur->children.find(name);
    if (it == cur->children.end()) return nullptr;
    cur = it->second;
  }
  return cur;
}

// Parent directory and last component of path.
std::shared_ptr<Node> parent_of(const char* path, std::string& name) {
  std::string p(path);
  size_t slash = p.rfind('/');
  name = p.substr(slash + 1);
  std::string dir = slash == 0 ? "/" : p.substr(0, slash);
  auto d = lookup(dir.c_str());
  return d && S_ISDIR(d->mode) ? d : nullptr;
}

std::shared_ptr<Node>& handle(fuse_file_info* fi) {
  return *reinterpret_cast<std::shared_ptr<Node>*>(fi->fh);
}

std::shared_ptr<Node> node_for(const char* path, fuse_file_info* fi) {
  if (fi && fi->fh) return handle(fi);
  return path ? lookup(path) : nullptr;
}

void fill_stat(const Node& n, struct stat* st) {
  std::memset(st, 0, sizeof *st);
  st->st_mode = n.mode;
  st->st_nlink = n.nlink;
  st->st_ino = n.ino;
  st->st_uid = getuid();
  st->st_gid = getgid();
  st->st_size = static_cast<off_t>(n.data.size());
  st->st_blksize = 4096;
  st->st_blocks = static_cast<blkcnt_t>((n.data.size() + 511) / 512);
  st->st_atim = n.atime;
  st->st_mtim = n.mtime;
  st->st_ctim = n.ctime;
}

#define GATE(op)                              \
  if (int gate_rc = g.faults->gate(Op::op)) { \
    return gate_rc;                           \
  }                                           \
  std::lock_guard<std::mutex> lock(g.mu)

void* fs_init(fuse_conn_info*, fuse_config* cfg) {
  cfg->hard_remove = 1;  // unlink really unlinks; open descriptors keep the data
  cfg->nullpath_ok = 1;
  cfg->use_ino = 1;
  return nullptr;
}

int fs_getattr(const char* path, struct stat* st, fuse_file_info* fi) {
  GATE(kGetattr);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  fill_stat(*n, st);
  return 0;
}

// Directory handles hold the node like file handles do: with nullpath_ok the
// library passes no path to readdir.
int fs_opendir(const char* path, fuse_file_info* fi) {
  GATE(kReaddir);
  auto n = lookup(path);
  if (!n) return -ENOENT;
  if (!S_ISDIR(n->mode)) return -ENOTDIR;
  fi->fh = reinterpret_cast<uint64_t>(new std::shared_ptr<Node>(n));
  return 0;
}

int fs_releasedir(const char*, fuse_file_info* fi) {
  std::lock_guard<std::mutex> lock(g.mu);
  delete reinterpret_cast<std::shared_ptr<Node>*>(fi->fh);
  fi->fh = 0;
  return 0;
}

int fs_readdir(const char* path, void* buf, fuse_fill_dir_t filler, off_t, fuse_file_info* fi,
               fuse_readdir_flags) {
  GATE(kReaddir);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  if (!S_ISDIR(n->mode)) return -ENOTDIR;
  filler(buf, ".", nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  filler(buf, "..", nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  for (const auto& [name, child] : n->children)
    filler(buf, name.c_str(), nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  return 0;
}

int fs_mkdir(const char* path, mode_t mode) {
  GATE(kMkdir);
  std::string name;
  auto d = parent_of(path, name);
  if (!d) return -ENOENT;
  if (d->children.count(name)) return -EEXIST;
  d->children[name] = make_node(S_IFDIR | (mode & 07777));
  ++d->nlink;
  d->mtime = d->ctime = now();
  return 0;
}

int fs_rmdir(const char* path) {
  GATE(kRmdir);
  std::string name;
  auto d = parent_of(path, name);
  if (!d) return -ENOENT;
  auto it = d->children.find(name);
  if (it == d->children.end()) return -ENOENT;
  if (!S_ISDIR(it->second->mode)) return -ENOTDIR;
  if (!it->second->children.empty()) return -ENOTEMPTY;
  d->children.erase(it);
  --d->nlink;
  d->mtime = d->ctime = now();
  return 0;
}

int fs_create(const char* path, mode_t mode, fuse_file_info* fi) {
  GATE(kCreate);
  std::string name;
  auto d = parent_of(path, name);
  if (!d) return -ENOENT;
  auto& slot = d->children[name];
  if (slot) {
    if (fi->flags & O_EXCL) return -EEXIST;
  } else {
    slot = make_node(S_IFREG | (mode & 07777));
    ++g.files;
    d->mtime = d->ctime = now();
  }
  fi->fh = reinterpret_cast<uint64_t>(new std::shared_ptr<Node>(slot));
  return 0;
}

int fs_open(const char* path, fuse_file_info* fi) {
  GATE(kOpen);
  auto n = lookup(path);
  if (!n) return -ENOENT;
  if (S_ISDIR(n->mode)) return -EISDIR;
  fi->fh = reinterpret_cast<uint64_t>(new std::shared_ptr<Node>(n));
  return 0;
}

int fs_read(const char* path, char* buf, size_t size, off_t off, fuse_file_info* fi) {
  GATE(kRead);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  if (off < 0 || static_cast<size_t>(off) >= n->data.size()) return 0;
  size_t count = std::min(size, n->data.size() - static_cast<size_t>(off));
  std::memcpy(buf, n->data.data() + off, count);
  n->atime = now();
  return static_cast<int>(count);
}

int fs_write(const char* path, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  GATE(kWrite);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  size_t end = static_cast<size_t>(off) + size;
  if (end > n->data.size()) {
    std::uint64_t grow = end - n->data.size();
    if (g.used + grow > g.max_bytes) return -ENOSPC;
    g.used += grow;
    n->data.resize(end);
  }
  std::memcpy(n->data.data() + off, buf, size);
  n->mtime = n->ctime = now();
  return static_cast<int>(size);
}

int fs_truncate(const char* path, off_t size, fuse_file_info* fi) {
  GATE(kTruncate);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  if (S_ISDIR(n->mode)) return -EISDIR;
  size_t want = static_cast<size_t>(size);
  if (want > n->data.size()) {
    if (g.used + (want - n->data.size()) > g.max_bytes) return -ENOSPC;
    g.used += want - n->data.size();
  } else {
    g.used -= n->data.size() - want;
  }
  n->data.resize(want);
  n->mtime = n->ctime = now();
  return 0;
}

int fs_unlink(const char* path) {
  GATE(kUnlink);
  std::string name;
  auto d = parent_of(path, name);
  if (!d) return -ENOENT;
  auto it = d->children.find(name);
  if (it == d->children.end()) return -ENOENT;
  if (S_ISDIR(it->second->mode)) return -EISDIR;
  it->second->nlink = 0;
  // Space comes back when the last descriptor closes (fs_release).
  if (it->second.use_count() == 1) g.used -= it->second->data.size();
  d->children.erase(it);
  --g.files;
  d->mtime = d->ctime = now();
  return 0;
}

int fs_rename(const char* from, const char* to, unsigned int flags) {
  GATE(kRename);
  std::string fname, tname;
  auto fd = parent_of(from, fname), td = parent_of(to, tname);
  if (!fd || !td) return -ENOENT;
  auto it = fd->children.find(fname);
  if (it == fd->children.end()) return -ENOENT;
  if ((flags & RENAME_NOREPLACE) && td->children.count(tname)) return -EEXIST;
  if (flags & ~static_cast<unsigned>(RENAME_NOREPLACE)) return -EINVAL;
  auto node = it->second;
  fd->children.erase(it);
  td->children[tname] = node;
  return 0;
}

int fs_fsync(const char*, int, fuse_file_info*) {
  GATE(kFsync);
  return 0;
}

int fs_flush(const char*, fuse_file_info*) {
  GATE(kFlush);
  return 0;
}

int fs_release(const char*, fuse_file_info* fi) {
  // Never gated: the kernel does not wait for RELEASE, and a hung release
  // would only pin memory.
  std::lock_guard<std::mutex> lock(g.mu);
  auto* h = reinterpret_cast<std::shared_ptr<Node>*>(fi->fh);
  if (h && (*h)->nlink == 0 && h->use_count() == 1) g.used -= (*h)->data.size();
  delete h;
  fi->fh = 0;
  return 0;
}

int fs_statfs(const char*, struct statvfs* st) {
  GATE(kStatfs);
  std::memset(st, 0, sizeof *st);
  st->f_bsize = st->f_frsize = 4096;
  st->f_blocks = g.max_bytes / 4096;
  st->f_bfree = st->f_bavail = (g.max_bytes - std::min(g.used, g.max_bytes)) / 4096;
  st->f_files = 1000000;
  st->f_ffree = st->f_favail = 1000000 - std::min<std::uint64_t>(g.files, 1000000);
  st->f_namemax = 255;
  return 0;
}

int fs_utimens(const char* path, const timespec tv[2], fuse_file_info* fi) {
  GATE(kUtimens);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  n->atime = tv[0].tv_nsec == UTIME_NOW ? now() : tv[0];
  n->mtime = tv[1].tv_nsec == UTIME_NOW ? now() : tv[1];
  return 0;
}

int fs_chmod(const char* path, mode_t mode, fuse_file_info* fi) {
  GATE(kOther);
  auto n = node_for(path, fi);
  if (!n) return -ENOENT;
  n->mode = (n->mode & S_IFMT) | (mode & 07777);
  return 0;
}

int fs_chown(const char* path, uid_t, gid_t, fuse_file_info* fi) {
  GATE(kOther);
  return node_for(path, fi) ? 0 : -ENOENT;
}

}  // namespace

void mem_fs_configure(Faults* faults, std::uint64_t max_bytes) {
  g.faults = faults;
  g.max_bytes = max_bytes;
  g.root = make_node(S_IFDIR | 0755);
}

fuse_operations mem_fs_operations() {
  fuse_operations ops{};
  ops.init = fs_init;
  ops.getattr = fs_getattr;
  ops.opendir = fs_opendir;
  ops.releasedir = fs_releasedir;
  ops.readdir = fs_readdir;
  ops.mkdir = fs_mkdir;
  ops.rmdir = fs_rmdir;
  ops.create = fs_create;
  ops.open = fs_open;
  ops.read = fs_read;
  ops.write = fs_write;
  ops.truncate = fs_truncate;
  ops.unlink = fs_unlink;
  ops.rename = fs_rename;
  ops.fsync = fs_fsync;
  ops.flush = fs_flush;
  ops.release = fs_release;
  ops.statfs = fs_statfs;
  ops.utimens = fs_utimens;
  ops.chmod = fs_chmod;
  ops.chown = fs_chown;
  return ops;
}

}  // namespace hn::test::faultfs
