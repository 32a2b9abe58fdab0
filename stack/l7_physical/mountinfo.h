#pragma once
// The mount table as the kernel shows it in /proc/<pid>/mountinfo (proc(5)):
//
//   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//   (1)(2) (3)  (4)   (5)     (6)        (7)   (8) (9)    (10)        (11)
//
// mount id, parent id, st_dev, root of the mount inside its file system (not
// "/" for a bind mount of a subdirectory), mount point, per-mount options,
// optional tagged fields, "-", fstype, source, super-block options. The kernel
// escapes space, tab, newline and backslash in paths as \040 \011 \012 \134;
// parse_mountinfo() undoes any \ooo escape.
//
// Pure functions: nothing here touches a file system, so none of it can hang.

#include <string>
#include <string_view>
#include <vector>

namespace hn::stack::physical {

struct MountEntry {
  int mount_id = 0;
  int parent_id = 0;
  std::string major_minor;                   // st_dev, "0:53"
  std::string root = "/";                    // "/sub" for a bind mount of a subdirectory
  std::string mount_point;                   // unescaped
  std::vector<std::string> mount_options;    // per-mount: rw, nosuid, relatime
  std::vector<std::string> optional_fields;  // shared:1, master:2, unbindable
  std::string fstype;                        // nfs4, lustre, fuse.faultfs
  std::string source;                        // unescaped: "filer:/export", "/dev/sda1"
  std::vector<std::string> super_options;    // rw, vers=4.2, hard, user_id=0

  bool operator==(const MountEntry&) const = default;
};

// Parses the whole file. Blank lines are ignored. Throws SourceError
// ("<source_name>:<line>: ...") on a line that is not mountinfo.
std::vector<MountEntry> parse_mountinfo(std::string_view text, const std::string& source_name);

// Undoes the kernel's octal escapes (\040 -> ' '); anything else is kept.
std::string unescape_mount_field(std::string_view field);

// The mount that really covers `path` (absolute and already resolved, e.g.
// by realpath). It walks the mount tree from the root mount down the path's
// prefixes, following parent ids, and at each mount point takes the topmost
// of an over-mount stack; a mount hidden under a later over-mount of one of
// its ancestors is therefore never chosen. When the ids do not form a tree
// (hand-written fixtures), it falls back to the last mount in table order
// whose mount point is the longest prefix of `path`. nullptr only for an empty
// table or a relative path.
const MountEntry* covering_mount(const std::vector<MountEntry>& mounts, const std::string& path);

// Per-mount options followed by super-block options: what a profile's
// `options: require/forbid` is matched against ("rw" may appear twice).
std::vector<std::string> effective_options(const MountEntry& m);

// True when either the mount or its super block is read-only.
bool is_read_only(const MountEntry& m);

// Lexical normalisation of an absolute path: collapses "//", "." and ".."
// without following symlinks. Used when replaying a snapshot, where there is
// no file system to resolve against.
std::string normalize_path(const std::string& path);

// True when `prefix` is `path` or a directory above it ("/mnt/a" covers
// "/mnt/a/b" but not "/mnt/ab").
bool path_has_prefix(const std::string& path, const std::string& prefix);

}  // namespace hn::stack::physical
