#include "migrate/artifacts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/env_output.h"
#include "compat/translate/shell_lexer.h"
#include "reports/atomic_file.h"

namespace hn::migrate {

namespace tr = compat::translate;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return lines;
}

// The assignments of a line that holds nothing else (with `export`,
// `declare -x` or bare), or nothing when the line is anything more.
struct Assignment {
  std::string name, raw;
};
struct AssignLine {
  bool pure = false;
  bool exported = false;
  std::vector<Assignment> assignments;
};

AssignLine read_assign_line(const std::string& line) {
  AssignLine out;
  if (!line.empty() && line.back() == '\\') return out;  // continues on the next line
  std::vector<tr::ShellToken> words;
  try {
    tr::ShellLexer lex(line, "", nullptr);
    for (tr::ShellToken t = lex.next(); t.kind != tr::ShellToken::kEnd; t = lex.next()) {
      if (t.kind != tr::ShellToken::kWord) return out;  // ;, &&, |, a redirection
      words.push_back(std::move(t));
    }
  } catch (const compat::InputError&) {
    return out;  // a quote that closes on a later line
  }
  size_t i = 0;
  if (i < words.size() && (words[i].text == "export" || words[i].text == "declare")) {
    out.exported = true;
    ++i;
    while (i < words.size() && !words[i].assign_name && words[i].text.rfind("-", 0) == 0) {
      if (words[i].text.find('x') == std::string::npos && words[0].text == "declare") return out;
      ++i;
    }
  }
  if (i == words.size()) return out;
  for (; i < words.size(); ++i) {
    if (!words[i].assign_name) return out;
    out.assignments.push_back({*words[i].assign_name, words[i].assign_raw});
  }
  out.pure = true;
  return out;
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n') c = ' ';
  return s;
}

}  // namespace

bool unchanged_setting(const tr::VarResult& v) {
  if (v.outcome != tr::Outcome::kTranslated) return false;
  if (v.input.dynamic) return v.outputs.empty();
  return v.outputs.size() == 1 && v.outputs[0].first == v.input.name &&
         v.outputs[0].second == v.input.value;
}

namespace {

// GPU-only sbatch/srun options; on an NPU cluster they ask for nothing there.
bool gpu_only_option(const std::string& option) {
  static const std::set<std::string> kGpu = {
      "--gpus",     "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket",
      "--gpu-bind", "--mem-per-gpu",   "--cpus-per-gpu",  "-G"};
  return kGpu.count(option) > 0;
}

// One #SBATCH line for an NPU cluster, or nullopt when it stays. `note`
// says what changed.
std::optional<std::string> npu_directive(const std::string& line, std::string& note) {
  const std::size_t at = line.find("#SBATCH");
  if (at == std::string::npos || line.find_first_not_of(" \t") != at) return std::nullopt;
  std::string rest = line.substr(at + 7);
  const std::size_t start = rest.find_first_not_of(" \t");
  if (start == std::string::npos) return std::nullopt;
  const std::size_t end = rest.find_first_of(" \t=", start);
  const std::string option = rest.substr(start, end == std::string::npos ? end : end - start);
  if (gpu_only_option(option)) {
    note = "'" + line + "' disabled (##SBATCH): GPU-only, the nodes have NPUs";
    return "#" + line;
  }
  if (option != "--gres") return std::nullopt;
  std::string value = end == std::string::npos ? "" : rest.substr(end + 1);
  value = value.substr(value.find_first_not_of(" \t=") == std::string::npos
                           ? value.size()
                           : value.find_first_not_of(" \t="));
  value = value.substr(0, value.find_first_of(" \t"));
  // gpu:8, gpu:a100:8, a list of resources: each gpu item becomes npu:<count>.
  std::string out, item;
  bool changed = false;
  std::stringstream items(value);
  while (std::getline(items, item, ',')) {
    if (item.rfind("gpu", 0) == 0) {
      const std::size_t colon = item.rfind(':');
      item = "npu" + (colon == std::string::npos ? "" : item.substr(colon));
      changed = true;
    }
    out += (out.empty() ? "" : ",") + item;
  }
  if (!changed) return std::nullopt;
  note = "'" + line + "' requests NPUs instead: --gres=" + out +
         " (check the GRES name in the cluster's gres.conf: `scontrol show node`)";
  return line.substr(0, at) + "#SBATCH --gres=" + out;
}

// A line that only assigns a CUDA-side variable, for torch_npu: the new line
// (empty to drop it) and why; nullopt when the line is something else.
std::optional<std::string> npu_environment(const std::string& line, std::string& note) {
  AssignLine a = read_assign_line(line);
  if (!a.pure || a.assignments.size() != 1) return std::nullopt;
  const Assignment& as = a.assignments.front();
  const std::string prefix = a.exported ? "export " : "";
  if (as.name == "CUDA_VISIBLE_DEVICES") {
    note = "torch_npu selects devices with ASCEND_RT_VISIBLE_DEVICES";
    return prefix + "ASCEND_RT_VISIBLE_DEVICES=" + as.raw;
  }
  if (as.name == "PYTORCH_CUDA_ALLOC_CONF") {
    note = "torch_npu's allocator reads PYTORCH_NPU_ALLOC_CONF (check each option is one it takes)";
    return prefix + "PYTORCH_NPU_ALLOC_CONF=" + as.raw;
  }
  if (as.name == "LD_PRELOAD" && as.raw.find("libnccl") != std::string::npos) {
    note = "preloads NCCL, which the NPU job does not use";
    return std::string();
  }
  return std::nullopt;
}

}  // namespace

std::string render_migrated_script(const std::string& text, const std::string& file,
                                   const tr::Translation& t, const std::string& header, bool npu) {
  // What the translation wrote (after merging) and what each variable became.
  std::map<std::string, std::string> written;
  for (const auto& l : t.env) written[l.name] = l.value;
  std::map<std::pair<std::string, int>, const tr::VarResult*> result;
  for (const auto& v : t.vars)
    if (v.input.file == file && v.input.line > 0) result[{v.input.name, v.input.line}] = &v;

  std::vector<std::string> lines = split_lines(text);
  std::set<std::string> placed;           // env names written inline
  std::vector<std::string> device_notes;  // the #SBATCH lines changed for NPUs
  std::vector<std::string> out;
  for (size_t n = 0; n < lines.size(); ++n) {
    const int line_no = static_cast<int>(n) + 1;
    const std::string& line = lines[n];
    bool touched = false;
    for (const auto& [key, v] : result)
      touched = touched || (key.second == line_no && !unchanged_setting(*v));
    if (!touched) {
      // Settings kept as they are stay where they are.
      for (const auto& [key, v] : result)
        if (key.second == line_no)
          for (const auto& o : v->outputs) placed.insert(o.first);
      std::string note;
      if (npu) {
        if (auto d = npu_directive(line, note)) {
          // One line for one: the head's lines keep their places.
          out.push_back(*d);
          device_notes.push_back("line " + std::to_string(line_no) + ": " + note);
          continue;
        }
        if (auto moved = npu_environment(line, note)) {
          out.push_back("# " + std::string(kArtifactMarker) + ": was: " + line + " (" + note + ")");
          if (!moved->empty()) out.push_back(*moved);
          continue;
        }
      }
      out.push_back(line);
      continue;
    }
    AssignLine a = read_assign_line(line);
    if (!a.pure) {
      std::string names;
      for (const auto& [key, v] : result)
        if (key.second == line_no) names += (names.empty() ? "" : ", ") + key.first;
      out.push_back("# " + std::string(kArtifactMarker) + ": " + names +
                    " set on this command line; the translated values are in the block above, "
                    "edit this line by hand");
      out.push_back(line);
      continue;
    }
    out.push_back("# " + std::string(kArtifactMarker) + ": was: " + line);
    const std::string prefix = a.exported ? "export " : "";
    for (const auto& as : a.assignments) {
      auto it = result.find({as.name, line_no});
      if (it == result.end()) {  // not a communication variable
        out.push_back(prefix + as.name + "=" + as.raw);
        continue;
      }
      const tr::VarResult& v = *it->second;
      const std::string outcome = tr::to_string(v.outcome);
      bool wrote = false;
      for (const auto& [name, value] : v.outputs) {
        auto w = written.find(name);
        if (w == written.end() || w->second != value || placed.count(name)) continue;
        placed.insert(name);
        wrote = true;
        bool same = name == v.input.name && value == v.input.value;
        out.push_back("export " + name + "=" + tr::shell_quote(value) +
                      (same ? ""
                            : "  # " + std::string(kArtifactMarker) + ": from " + v.input.name +
                                  "=" + one_line(v.input.value) + ", " + outcome));
      }
      if (wrote) continue;
      bool folded = !v.outputs.empty();
      std::string into;
      for (const auto& [name, value] : v.outputs) {
        folded = folded && placed.count(name);
        into += (into.empty() ? "" : ", ") + name;
      }
      if (folded) {
        out.push_back("# " + std::string(kArtifactMarker) + ": " + v.input.name + " is part of " +
                      into + " above");
        continue;
      }
      if (v.input.dynamic && v.outcome == tr::Outcome::kTranslated) {
        out.push_back(prefix + as.name + "=" + as.raw);  // computed at run time; kept
        continue;
      }
      std::string why = !v.todo.empty() ? v.todo : v.detail;
      out.push_back("# " + std::string(kArtifactMarker) + ": " + v.input.name + " " +
                    (v.outcome == tr::Outcome::kDropped || v.outcome == tr::Outcome::kUnknown
                         ? outcome
                         : outcome + ", not written") +
                    (why.empty() ? "" : ": " + one_line(why)));
    }
  }

  // Open MPI starts remote ranks with only the variables -x names: the
  // translated settings go onto each mpirun line (not for MPICH/Intel MPI,
  // whose -genv lines the user edits, nor for launchers that pass the whole
  // environment).
  for (size_t n = 0; n < out.size(); ++n) {
    std::string& line = out[n];
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    size_t end = line.find_first_of(" \t", first);
    std::string cmd =
        line.substr(first, end == std::string::npos ? std::string::npos : end - first);
    cmd = cmd.substr(cmd.rfind('/') == std::string::npos ? 0 : cmd.rfind('/') + 1);
    if ((cmd != "mpirun" && cmd != "mpiexec" && cmd != "orterun") ||
        line.find("-genv") != std::string::npos)
      continue;
    // The whole command, continuation lines included, for the -x it has.
    std::string command = line;
    for (size_t k = n; k + 1 < out.size() && !out[k].empty() && out[k].back() == '\\'; ++k)
      command += "\n" + out[k + 1];
    std::string forward;
    for (const auto& l : t.env)
      if (command.find("-x " + l.name) == std::string::npos &&
          command.find("-x=" + l.name) == std::string::npos)
        forward += " -x " + l.name;
    if (forward.empty()) continue;
    out.insert(out.begin() + static_cast<long>(n),
               "# " + std::string(kArtifactMarker) +
                   ": -x forwards the translated settings to the ranks on other nodes (Open "
                   "MPI passes only the variables -x names)");
    ++n;
    out[n].insert(end == std::string::npos ? out[n].size() : end, forward);
  }

  // The block: translated values no edited line carries.
  std::vector<std::string> block;
  for (const auto& l : t.env)
    if (!placed.count(l.name))
      block.push_back("export " + l.name + "=" + tr::shell_quote(l.value) + "  # " +
                      one_line(l.origin));
  // After the shebang, comments and #SBATCH lines at the top (never edited,
  // so their index is the same in the copy).
  size_t insert_at = 0;
  while (insert_at < lines.size()) {
    size_t first = lines[insert_at].find_first_not_of(" \t");
    if (first != std::string::npos && lines[insert_at][first] != '#') break;
    ++insert_at;
  }
  std::vector<std::string> head = {"# " + header +
                                   " (each changed line keeps the original as a comment)"};
  for (const auto& n : device_notes) head.push_back("# " + std::string(kArtifactMarker) + ": " + n);
  if (!block.empty()) {
    head.push_back("# ---- " + std::string(kArtifactMarker) +
                   ": settings no single line of the original sets ----");
    head.insert(head.end(), block.begin(), block.end());
    head.push_back("# ----");
  }
  // The marker goes right after the shebang so a re-run can recognise the file.
  size_t marker_at = !out.empty() && out[0].rfind("#!", 0) == 0 ? 1 : 0;
  out.insert(out.begin() + static_cast<long>(insert_at), head.begin() + 1, head.end());
  out.insert(out.begin() + static_cast<long>(marker_at), head.front());
  std::string s;
  for (const auto& l : out) s += l + "\n";
  return s;
}

namespace {

constexpr const char* kSealPrefix = "# hnprecheck migrate seal: fnv1a64 ";

std::string fnv1a64(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

}  // namespace

std::string seal_artifact(const std::string& content) {
  std::string body = content;
  if (!body.empty() && body.back() != '\n') body += '\n';
  return body + kSealPrefix + fnv1a64(body) +
         " of the lines above: once they are edited, a re-run leaves this file alone\n";
}

bool artifact_sealed(const std::string& text) {
  if (text.empty() || text.back() != '\n') return false;
  size_t start = text.rfind('\n', text.size() - 2);
  start = start == std::string::npos ? 0 : start + 1;
  const std::string last = text.substr(start);
  const std::string prefix = kSealPrefix;
  if (last.rfind(prefix, 0) != 0 || last.size() < prefix.size() + 16) return false;
  return last.substr(prefix.size(), 16) == fnv1a64(text.substr(0, start));
}

std::string env_artifact_path(const std::string& dir, const std::string& job,
                              const std::string& to) {
  return (fs::path(dir) / (job + "." + to + ".env")).string();
}

std::string script_artifact_path(const std::string& dir, const std::string& script) {
  fs::path p(script);
  return (fs::path(dir) / (p.stem().string() + ".migrated" + p.extension().string())).string();
}

namespace {

// Reads through the same resolution the write will use, so a link someone
// else planted is never followed here either.
enum class Ours { kNo, kEdited, kYes };
Ours written_by_us(const std::string& path) {
  std::optional<std::string> text =
      reports::read_existing_output(path, compat::kMaxLaunchFileBytes);
  if (!text) return Ours::kNo;
  std::istringstream in(*text);
  std::string line;
  bool marked = false;
  for (int i = 0; i < 2 && std::getline(in, line); ++i)
    marked = marked || line.rfind("# " + std::string(kArtifactMarker), 0) == 0;
  if (!marked) return Ours::kNo;
  return artifact_sealed(*text) ? Ours::kYes : Ours::kEdited;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

void check_artifact_paths(const std::string& dir, const std::vector<std::string>& paths,
                          const std::vector<std::string>& inputs) {
  auto fail = [](const std::string& what) {
    throw compat::InputError("command line", 0, 0, "--out-dir", what);
  };
  // mkdir never follows a link in the last component: a planted link
  // makes it fail with EEXIST, and the checks below judge what is there.
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    fail(dir + (errno == ENOENT ? ": its parent directory does not exist"
                                : ": cannot create it: " + std::string(std::strerror(errno))));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) fail(dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) fail(dir + " exists and is not a directory");
  // Another user's directory that others may write in: whoever can write
  // there can put links or files under the artifacts' names between this
  // check and the next run. The writes themselves never follow such a link
  // (reports/atomic_file.h), but a directory like that is no place for files
  // a job will run.
  if (st.st_uid != ::geteuid() && (st.st_mode & S_IWOTH))
    fail(dir + " belongs to uid " + std::to_string(st.st_uid) +
         " and every user may write in it; give --out-dir a directory of your own");
  for (const auto& p : paths) {
    for (const auto& in : inputs)
      if (same_file(p, in)) fail(p + " is one of the job's inputs; choose another --out-dir");
    if (std::string why = reports::output_path_problem(p); !why.empty()) fail(why);
    struct stat pst {};
    if (::lstat(p.c_str(), &pst) != 0) continue;
    const Ours ours = written_by_us(p);
    if (ours == Ours::kNo)
      fail(p +
           " exists and was not written by hnprecheck migrate; it is never overwritten "
           "(move it away or choose another --out-dir)");
    if (ours == Ours::kEdited)
      fail(p +
           " was written by hnprecheck migrate but changed since (its seal, the last line, "
           "no longer matches): hand edits are never overwritten (move it away, or "
           "choose another --out-dir)");
  }
}

}  // namespace hn::migrate
