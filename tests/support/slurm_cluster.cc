#include "tests/support/slurm_cluster.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/netns_cluster.h"  // find_program

extern char** environ;

namespace hn::test {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kMarker = "HN_SLURM_CLUSTER=";
constexpr const char* kDirPrefix = "hn-slurm-";

std::string tmp_base() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? base : "/tmp";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& content, mode_t mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + path);
  }
  if (chmod(path.c_str(), mode) != 0) throw std::runtime_error("cannot chmod " + path);
}

std::string tail_lines(const std::string& text, int n) {
  size_t pos = text.size();
  if (pos && text[pos - 1] == '\n') --pos;
  for (int i = 0; i < n && pos != std::string::npos && pos > 0; ++i)
    pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos || pos == 0 ? text : text.substr(pos + 1);
}

bool alive(pid_t pid) {
  return kill(pid, 0) == 0 || errno != ESRCH;
}

// The cluster directory (one starting with prefix) a process belongs to, or
// "": HN_SLURM_CLUSTER=<dir> or SLURM_CONF=<dir>/slurm.conf in its
// environment (daemons, srun, tasks; Prologs get SLURM_CONF from slurmd),
// else a file it holds open or its working directory under prefix
// (slurmstepd rewrites its environment for its title but keeps the slurmd
// log open).
std::string owning_dir(const std::string& pid, const std::string& prefix) {
  auto dir_of = [&](std::string path) -> std::string {
    if (path.compare(0, prefix.size(), prefix) != 0) return "";
    if (path.size() > 10 && path.compare(path.size() - 10, 10, " (deleted)") == 0)
      path.resize(path.size() - 10);
    return path.substr(0, path.find('/', prefix.size()));
  };
  std::string env = slurp("/proc/" + pid + "/environ");
  for (size_t at = 0; at < env.size();) {
    size_t z = env.find('\0', at);
    if (z == std::string::npos) z = env.size();
    for (std::string key : {kMarker, "SLURM_CONF="})
      if (env.compare(at, key.size(), key) == 0) {
        std::string d = dir_of(env.substr(at + key.size(), z - at - key.size()));
        if (!d.empty()) return d;
      }
    at = z + 1;
  }
  std::error_code ec;
  std::string cwd = fs::read_symlink("/proc/" + pid + "/cwd", ec);
  if (!ec && !dir_of(cwd).empty()) return dir_of(cwd);
  for (const auto& fd : fs::directory_iterator("/proc/" + pid + "/fd", ec)) {
    std::error_code ec2;
    std::string target = fs::read_symlink(fd.path(), ec2);
    if (!ec2 && !dir_of(target).empty()) return dir_of(target);
  }
  return "";
}

// Live processes (not us) belonging to a cluster directory that starts with
// prefix, with that directory.
std::vector<std::pair<pid_t, std::string>> marked_processes(const std::string& prefix) {
  std::vector<std::pair<pid_t, std::string>> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end || pid == getpid()) continue;
    std::string dir = owning_dir(e->d_name, prefix);
    if (!dir.empty()) out.emplace_back(static_cast<pid_t>(pid), dir);
  }
  closedir(proc);
  return out;
}

// SIGKILLs every process of the cluster in dir, but those in the process
// groups spared, until none is left (a killed slurmstepd's tasks are next).
// Bounded.
void kill_marked(const std::string& dir, const std::set<pid_t>& spared = {}) {
  auto deadline = Clock::now() + std::chrono::seconds(5);
  for (;;) {
    bool any = false;
    for (const auto& [pid, value] : marked_processes(dir)) {
      if (value != dir || spared.count(getpgid(pid))) continue;
      any = true;
      kill(pid, SIGKILL);
    }
    if (!any || Clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// The pid in "<base>/hn-slurm-<pid>-<n>-XXXXXX", or -1.
long owner_pid(const std::string& dir) {
  std::string name = fs::path(dir).filename();
  if (name.rfind(kDirPrefix, 0) != 0) return -1;
  return std::strtol(name.c_str() + std::strlen(kDirPrefix), nullptr, 10);
}

// Kills the processes and removes the directories that runs whose test
// process is gone left behind (a ctest timeout SIGKILLs the test).
void remove_stale_clusters() {
  std::string prefix = tmp_base() + "/" + kDirPrefix;
  std::set<std::string> stale;
  for (const auto& [pid, value] : marked_processes(prefix)) {
    long owner = owner_pid(value);
    if (owner > 0 && owner != getpid() && !alive(static_cast<pid_t>(owner))) stale.insert(value);
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp_base(), ec)) {
    std::string p = e.path().string();
    long owner = owner_pid(p);
    if (owner > 0 && owner != getpid() && !alive(static_cast<pid_t>(owner))) stale.insert(p);
  }
  for (const auto& d : stale) {
    kill_marked(d);
    fs::remove_all(d, ec);
  }
}

// Waits up to timeout for pid (our child) to exit; true when it did.
bool wait_exit(pid_t pid, double timeout_s) {
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Starts argv in the background: its own process group, stdin /dev/null,
// stdout and stderr to log, extra environment entries, killed when we die.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
            const std::vector<std::string>& env) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

// Entries that remove the launcher variables of a Slurm job this test may
// itself run in (glibc putenv("NAME") unsets NAME), so srun does not join it.
std::vector<std::string> unset_outer_slurm() {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    for (const char* p : {"SLURM_", "SBATCH_", "SALLOC_", "SRUN_"})
      if (name.rfind(p, 0) == 0) out.push_back(name);
  }
  return out;
}

// A munged of our own: key, socket, pid, seed and log files in dir.
// Returns its pid; throws when it does not sign and verify a credential
// within a few seconds (the message carries its log).
pid_t start_munged(const std::string& dir, const std::vector<std::string>& env) {
  fs::create_directories(dir);
  std::ifstream rnd("/dev/urandom", std::ios::binary);
  std::string key(128, '\0');
  if (!rnd.read(key.data(), static_cast<std::streamsize>(key.size())))
    throw std::runtime_error("cannot read /dev/urandom for the munge key");
  spit(dir + "/munge.key", key, 0400);
  std::string munged = find_program("munged");
  std::string sock = dir + "/munge.socket";
  pid_t pid = spawn({munged, "--foreground", "--force", "--socket=" + sock,
                     "--key-file=" + dir + "/munge.key", "--log-file=" + dir + "/munged.log",
                     "--pid-file=" + dir + "/munged.pid", "--seed-file=" + dir + "/munged.seed"},
                    dir + "/munged.out", env);
  auto deadline = Clock::now() + std::chrono::seconds(10);
  std::string munge = find_program("munge"), unmunge = find_program("unmunge");
  std::string why;
  while (Clock::now() < deadline) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      why = "munged exited";
      pid = -1;
      break;
    }
    if (access(sock.c_str(), F_OK) == 0) {
      ProcessResult cred = run_process({munge, "--socket=" + sock, "--no-input"}, 5);
      std::string cred_file = dir + "/probe.cred";
      spit(cred_file, cred.out, 0600);
      ProcessResult check =
          run_process({unmunge, "--socket=" + sock, "--input=" + cred_file, "--no-output"}, 5);
      if (cred.exit_code == 0 && check.exit_code == 0) return pid;
      why = "munge/unmunge failed: " + cred.err + check.err;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (pid > 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  if (why.empty()) why = "no socket " + sock + " after 10 s";
  throw std::runtime_error("munged did not start (" + why + "): " + slurp(dir + "/munged.out") +
                           slurp(dir + "/munged.log"));
}

std::string short_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) throw std::runtime_error("gethostname failed");
  std::string h = buf;
  return h.substr(0, h.find('.'));
}

}  // namespace

int free_tcp_port() {
  static std::mt19937 rng(static_cast<unsigned>(getpid()) * 7919u ^
                          static_cast<unsigned>(Clock::now().time_since_epoch().count()));
  static std::set<int> handed_out;
  std::uniform_int_distribution<int> pick(20000, 31999);
  for (int attempt = 0; attempt < 200; ++attempt) {
    int port = pick(rng);
    if (handed_out.count(port)) continue;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket failed");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    if (ok) {
      handed_out.insert(port);
      return port;
    }
  }
  throw std::runtime_error("no free TCP port in [20000, 32000)");
}

std::string SlurmCluster::unavailable_reason() {
  static const std::string reason = [] {
    if (geteuid() != 0) return std::string("needs root (slurmd runs jobs and Prologs as root)");
    for (const char* p :
         {"slurmctld", "slurmd", "srun", "sinfo", "scontrol", "munged", "munge", "unmunge"})
      if (find_program(p).empty())
        return std::string(p) +
               " is not installed (scripts/install-deps.sh --test installs slurm-wlm and munge)";
    std::string templ = tmp_base() + "/hn-munge-probe-XXXXXX";
    if (!mkdtemp(templ.data())) return "cannot create a directory under " + tmp_base();
    std::string why;
    try {
      pid_t pid = start_munged(templ, {});
      kill(pid, SIGTERM);
      if (!wait_exit(pid, 5)) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    } catch (const std::exception& e) {
      why = std::string("munge cannot run here: ") + e.what();
    }
    std::error_code ec;
    fs::remove_all(templ, ec);
    return why;
  }();
  return reason;
}

SlurmCluster::SlurmCluster(SlurmClusterOptions options) : options_(std::move(options)) {
  if (options_.nodes < 1) throw std::invalid_argument("a Slurm cluster needs a node");
  remove_stale_clusters();
  // Orphans (slurmstepd, its tasks) come to us instead of init, so stop()
  // can reap them.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  static std::atomic<int> counter{0};
  std::string templ = tmp_base() + "/" + kDirPrefix + std::to_string(getpid()) + "-" +
                      std::to_string(counter++) + "-XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  dir_ = templ;
  try {
    chmod(dir_.c_str(), 0755);  // munged wants its socket's directories searchable
    for (const char* d : {"state", "log", "spool"}) fs::create_directories(dir_ + "/" + d);
    for (int i = 0; i < options_.nodes; ++i)
      fs::create_directories(dir_ + "/spool/" + node_name(i));

    std::vector<std::string> env = unset_outer_slurm();
    env.push_back(marker_env());
    daemons_.push_back({"munged", start_munged(dir_ + "/munge", env)});

    std::string host = short_hostname();
    std::ostringstream conf;
    conf << "# written by tests/support/slurm_cluster.cc\n"
         << "ClusterName=hntest\n"
         << "SlurmctldHost=" << host << "(127.0.0.1)\n"
         << "SlurmctldPort=" << free_tcp_port() << "\n"
         << "AuthType=auth/munge\n"
         << "CredType=cred/munge\n"
         << "AuthInfo=socket=" << dir_ << "/munge/munge.socket\n"
         << "SlurmUser=root\nSlurmdUser=root\n"
         << "StateSaveLocation=" << dir_ << "/state\n"
         << "SlurmdSpoolDir=" << dir_ << "/spool/%n\n"
         << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\n"
         << "SlurmdPidFile=" << dir_ << "/slurmd-%n.pid\n"
         << "SlurmctldLogFile=" << dir_ << "/log/slurmctld.log\n"
         << "SlurmdLogFile=" << dir_ << "/log/slurmd-%n.log\n"
         << "ProctrackType=proctrack/linuxproc\n"
         << "TaskPlugin=task/none\n"
         << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
         << "SchedulerType=sched/builtin\n"
         << "MpiDefault=none\n"
         << "JobCompType=jobcomp/none\n"
         << "AccountingStorageType=accounting_storage/none\n"
         << "SlurmdParameters=config_overrides\n"  // virtual nodes may claim any CPU count
         << "ReturnToService=2\n"
         << "KillWait=2\n"
         << "InactiveLimit=0\n";
    if (options_.prolog)
      conf << "Prolog=" << write("prolog.sh", options_.prolog(dir_), true) << "\n";
    for (const auto& line : options_.extra_conf) conf << line << "\n";
    std::string nodes;
    for (int i = 0; i < options_.nodes; ++i) {
      conf << "NodeName=" << node_name(i) << " NodeHostname=" << host
           << " NodeAddr=127.0.0.1 Port=" << free_tcp_port() << " CPUs=" << options_.cpus_per_node
           << " State=UNKNOWN\n";
      nodes += (i ? "," : "") + node_name(i);
    }
    conf << "PartitionName=hn Nodes=" << nodes << " Default=YES MaxTime=INFINITE State=UP\n";
    spit(conf_path(), conf.str(), 0644);

    start_daemon("slurmctld", {find_program("slurmctld"), "-D", "-f", conf_path()});
    for (int i = 0; i < options_.nodes; ++i)
      start_daemon("slurmd-" + node_name(i),
                   {find_program("slurmd"), "-D", "-N", node_name(i), "-f", conf_path()});
    wait_idle();
  } catch (...) {
    stop();
    throw;
  }
}

SlurmCluster::~SlurmCluster() {
  stop();
}

void SlurmCluster::start_daemon(const std::string& name, std::vector<std::string> argv) {
  std::vector<std::string> env = unset_outer_slurm();
  env.push_back(marker_env());
  env.push_back("SLURM_CONF=" + conf_path());
  daemons_.push_back({name, spawn(argv, dir_ + "/log/" + name + ".out", env)});
}

void SlurmCluster::wait_idle() {
  auto deadline = Clock::now() + std::chrono::duration<double>(options_.start_timeout_s);
  std::string states;
  for (;;) {
    for (const auto& d : daemons_)
      if (waitpid(d.pid, nullptr, WNOHANG) == d.pid)
        throw std::runtime_error(d.name + " exited while the cluster started:\n" + logs());
    states = node_states();
    int idle = 0;
    std::istringstream in(states);
    for (std::string name, state; in >> name >> state;)
      if (state == "idle") ++idle;
    if (idle == options_.nodes) return;
    if (Clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::ostringstream msg;
  msg << "Slurm nodes not idle after " << options_.start_timeout_s << " s; sinfo says:\n"
      << states << "\n"
      << logs();
  throw std::runtime_error(msg.str());
}

void SlurmCluster::stop() {
  if (dir_.empty()) return;
  std::set<pid_t> groups;
  for (const auto& d : daemons_) groups.insert(d.pid);
  auto others_left = [&] {
    for (const auto& [pid, value] : marked_processes(dir_))
      if (value == dir_ && !groups.count(getpgid(pid))) return true;
    return false;
  };
  // Jobs still there (a test failed half way, srun was killed): cancel them
  // while the daemons run, so the slurmstepds end their steps and go.
  bool ctld_up = false;
  for (const auto& d : daemons_)
    if (d.name == "slurmctld" && waitpid(d.pid, nullptr, WNOHANG) == 0) ctld_up = true;
  if (ctld_up && (!run({"squeue", "-h"}, 10).out.empty() || others_left())) {
    run({"scancel", "--partition=hn"}, 10);
    auto deadline = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < deadline && (!run({"squeue", "-h"}, 10).out.empty() || others_left()))
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Whatever steps, Prologs and tasks remain, so nothing outlives the daemons.
  kill_marked(dir_, groups);
  // Every daemon's group (slurmctld's slurmscriptd is in its group) gets
  // SIGTERM, then SIGKILL when it is not gone within 5 s.
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
    if (it->pid <= 0) continue;
    killpg(it->pid, SIGTERM);
  }
  auto deadline = Clock::now() + std::chrono::seconds(5);
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
    if (it->pid <= 0) continue;
    double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (!wait_exit(it->pid, left > 0 ? left : 0)) {
      killpg(it->pid, SIGKILL);
      waitpid(it->pid, nullptr, 0);
    }
    killpg(it->pid, SIGKILL);  // whatever is left of its group
    it->pid = -1;
  }
  daemons_.clear();
  kill_marked(dir_);
  // slurmstepd (double-forked by slurmd) and its tasks were re-parented to
  // us (PR_SET_CHILD_SUBREAPER): reap them, so not even a zombie is left.
  for (auto until = Clock::now() + std::chrono::milliseconds(200); Clock::now() < until;) {
    pid_t r = waitpid(-1, nullptr, WNOHANG);
    if (r < 0) break;  // no children at all
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
  dir_.clear();
}

std::string SlurmCluster::write(const std::string& name, const std::string& content,
                                bool executable) const {
  std::string p = dir_ + "/" + name;
  fs::create_directories(fs::path(p).parent_path());
  // Written beside and renamed: a Prolog may be reading the old one.
  spit(p + ".new", content, executable ? 0755 : 0644);
  if (rename((p + ".new").c_str(), p.c_str()) != 0) throw std::runtime_error("cannot write " + p);
  return p;
}

ProcessResult SlurmCluster::run(std::vector<std::string> argv, double timeout_s,
                                const std::vector<std::string>& env) const {
  std::string prog = argv.at(0).find('/') == std::string::npos ? find_program(argv[0]) : argv[0];
  if (prog.empty()) throw std::runtime_error(argv[0] + " is not installed");
  argv[0] = prog;
  std::vector<std::string> all = unset_outer_slurm();
  all.push_back("SLURM_CONF=" + conf_path());
  all.push_back(marker_env());
  all.insert(all.end(), env.begin(), env.end());
  return run_process(argv, timeout_s, all);
}

std::string SlurmCluster::node_states() const {
  ProcessResult r = run({"sinfo", "-N", "-h", "-o", "%N %T"}, 10);
  return r.exit_code == 0 ? r.out
                          : "sinfo failed (exit " + std::to_string(r.exit_code) + "): " + r.err;
}

namespace {
std::string field(const std::string& text, const std::string& key) {
  size_t at = text.find(" " + key + "=");
  if (at == std::string::npos) at = text.find("\n" + key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  // Reason= runs to the end of the line; other fields end at a blank.
  size_t end = key == "Reason" ? text.find('\n', at) : text.find_first_of(" \n", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}
}  // namespace

std::string SlurmCluster::node_state(const std::string& node) const {
  return field(run({"scontrol", "show", "node", node}, 10).out, "State");
}

std::string SlurmCluster::node_reason(const std::string& node) const {
  return field(run({"scontrol", "show", "node", node}, 10).out, "Reason");
}

std::vector<int> SlurmCluster::processes_of(const std::string& dir) {
  std::vector<int> out;
  for (const auto& [pid, value] : marked_processes(dir))
    if (value == dir) out.push_back(pid);
  return out;
}

std::string SlurmCluster::logs(int lines_per_file) const {
  std::string out;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_ + "/log", ec)) files.push_back(e.path());
  files.push_back(dir_ + "/munge/munged.log");
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string text = slurp(f);
    if (text.empty()) continue;
    out += "==> " + f + " <==\n" + tail_lines(text, lines_per_file);
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

}  // namespace hn::test
