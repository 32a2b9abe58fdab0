#include "tests/preflight/certify_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/json_schema.h"

namespace hn::test {

namespace {

using Clock = std::chrono::steady_clock;

pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& out, const std::string& err) {
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0) _exit(126);
    dup2(o, 1);
    dup2(e, 2);
    for (const auto& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream s;
  s << in.rdbuf();
  try {
    return nlohmann::json::parse(s.str());
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

std::vector<nlohmann::json> CertifyRun::findings(const std::string& code,
                                                 const std::string& status) const {
  std::vector<nlohmann::json> out;
  if (report.is_null()) return out;
  for (const auto& f : report["findings"])
    if (f["code"] == code && (status.empty() || f["status"] == status)) out.push_back(f);
  return out;
}

std::string CertifyRun::all_output() const {
  std::string s;
  for (std::size_t i = 0; i < out.size(); ++i)
    s += "---- rank " + std::to_string(i) + " (exit " + std::to_string(exit_codes[i]) +
         ")\n" + out[i] + err[i];
  return s;
}

NetnsClusterOptions certify_cluster_options(int hosts) {
  NetnsClusterOptions o;
  o.hosts = hosts;
  return o;
}

bool wait_for_text(const std::string& path, const std::string& text, double timeout_s) {
  const auto until = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (Clock::now() < until) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    if (s.str().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

CertifyRun run_certify(const NetnsCluster& c, const CertifyOptions& o) {
  TempDir dir;
  const std::string profile = dir.write("cluster.yaml", o.profile_yaml);
  std::random_device rd;
  const std::string port = std::to_string(30000 + rd() % 20000);
  const int n = c.size();
  std::vector<pid_t> pids;
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    std::string mount = static_cast<std::size_t>(i) < o.mount_commands.size()
                            ? o.mount_commands[static_cast<std::size_t>(i)]
                            : "";
    std::string script = (mount.empty() ? "" : mount + " && ") + "hostname " + c.node_name(i) +
                         " && exec \"$@\"";
    std::vector<std::string> argv = {find_program("ip"),
                                     "netns",
                                     "exec",
                                     c.host(i).name(),
                                     find_program("unshare"),
                                     mount.empty() ? "-u" : "-um",
                                     "/bin/sh",
                                     "-c",
                                     script,
                                     "sh",
                                     HN_BINARY,
                                     "certify",
                                     "--profile",
                                     profile,
                                     "--no-color"};
    if (i == 0) {
      argv.insert(argv.end(), {"--json", dir.path() + "/report.json", "--certificate",
                               dir.path() + "/certificate.json"});
    }
    argv.insert(argv.end(), o.args.begin(), o.args.end());
    std::vector<std::string> env = {"RANK=" + std::to_string(i),
                                    "WORLD_SIZE=" + std::to_string(n),
                                    "MASTER_ADDR=" + c.address(0, "stor"), "MASTER_PORT=" + port,
                                    "HN_TOKEN=certify-netns-test-token-0123456789abcdef"};
    pids.push_back(spawn(argv, env, dir.path() + "/out" + std::to_string(i),
                         dir.path() + "/err" + std::to_string(i)));
  }
  if (o.while_running) o.while_running(pids, dir);
  CertifyRun r;
  r.exit_codes.assign(static_cast<std::size_t>(n), -1);
  const auto until = t0 + std::chrono::duration<double>(o.timeout_s);
  std::size_t left = pids.size();
  std::vector<bool> done(pids.size(), false);
  while (left > 0) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        done[i] = true;
        --left;
        if (WIFEXITED(status)) r.exit_codes[i] = WEXITSTATUS(status);
      }
    }
    if (left == 0) break;
    if (Clock::now() > until) {
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (!done[i]) {
          kill(pids[i], SIGKILL);
          waitpid(pids[i], nullptr, 0);
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (int i = 0; i < n; ++i) {
    std::ifstream out(dir.path() + "/out" + std::to_string(i)),
        err(dir.path() + "/err" + std::to_string(i));
    std::stringstream so, se;
    so << out.rdbuf();
    se << err.rdbuf();
    r.out.push_back(so.str());
    r.err.push_back(se.str());
  }
  r.report = read_json(dir.path() + "/report.json");
  r.certificate = read_json(dir.path() + "/certificate.json");
  // Every certificate a test produces must match the published schema.
  if (!r.certificate.is_null()) {
    const auto errors = json_schema_errors(certificate_schema(), r.certificate);
    if (!errors.empty()) {
      std::string all;
      for (const auto& e : errors) all += "\n  " + e;
      throw std::runtime_error("the certificate does not match docs/certificate.schema.json:" +
                               all);
    }
  }
  return r;
}

}  // namespace hn::test
