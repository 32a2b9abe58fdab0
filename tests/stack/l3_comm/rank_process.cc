#include "tests/stack/l3_comm/rank_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "compat/input_error.h"
#include "stack/l3_comm/bootstrap.h"

namespace hn::test {

using namespace stack::comm;
using Clock = std::chrono::steady_clock;

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

int free_port() {
  LinkParams p;
  Fd fd = listen_on("127.0.0.1", 0, p, {});
  return local_port_of(fd.get());
}

namespace {
void write_outcome(const std::string& path, const Outcome& o) {
  std::ofstream f(path);
  f << o.kind << "\n" << o.dead_rank << "\n" << o.at_ms << "\n" << o.refused << "\n";
  for (char c : o.message) f << (c == '\n' ? ' ' : c);
  f << "\n";
}
}  // namespace

Outcome read_outcome(const std::string& path) {
  std::ifstream f(path);
  Outcome o;
  std::string line;
  std::getline(f, o.kind);
  std::getline(f, line);
  o.dead_rank = line.empty() ? -1 : std::stoi(line);
  std::getline(f, line);
  o.at_ms = line.empty() ? 0 : std::stoll(line);
  std::getline(f, line);
  o.refused = line.empty() ? 0 : std::stoul(line);
  std::getline(f, o.message);
  return o;
}

std::map<std::string, std::string> rank_env(int rank, int world, int port, const std::string& job,
                                            const std::string& token) {
  return {{"HN_RANK", std::to_string(rank)},
          {"HN_WORLD_SIZE", std::to_string(world)},
          {"HN_RENDEZVOUS", "127.0.0.1:" + std::to_string(port)},
          {"HN_JOB_ID", job},
          {"HN_TOKEN", token}};
}

pid_t spawn_rank(const std::map<std::string, std::string>& env, TransportKind t,
                 std::chrono::milliseconds timeout, const std::string& result_path,
                 const std::function<void(Communicator&)>& body,
                 const std::function<void()>& before) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (before) before();
  for (const char* v :
       {"HN_RANK", "HN_WORLD_SIZE", "HN_STORE_FD", "HN_RENDEZVOUS", "HN_TOKEN", "HN_JOB_ID"})
    unsetenv(v);
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  Outcome o;
  try {
    auto b = bootstrap_from_env(stack::sched::process_env(), {});
    b.options.transport = t;
    b.options.timeout = timeout;
    b.options.link.connect_timeout = timeout;
    // What the rank's listeners refused, one line each, for the test to read.
    b.options.on_rejection = [log = result_path + ".refused"](const std::string& line) {
      std::ofstream(log, std::ios::app) << line << "\n";
    };
    Communicator c(b.options);
    body(c);
    o.kind = "ok";
    o.refused = c.rejected();
  } catch (const PeerDiedError& e) {
    o = {"peer-died", e.dead_rank(), 0, e.what()};
  } catch (const AuthError& e) {
    o = {"auth", -1, 0, e.what()};
  } catch (const TimeoutError& e) {
    o = {"timeout", -1, 0, e.what()};
  } catch (const LinkError& e) {
    o = {e.kind() == LinkError::Kind::kPortInUse ? "port-in-use" : "link", -1, 0, e.what()};
  } catch (const compat::InputError& e) {
    o = {"input", -1, 0, e.what()};
  } catch (const std::exception& e) {
    o = {"other", -1, 0, e.what()};
  }
  o.at_ms = now_ms();
  write_outcome(result_path, o);
  _exit(o.kind == "ok" ? 0 : 1);
}

bool wait_for(pid_t pid, std::chrono::milliseconds limit) {
  auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return false;
}

}  // namespace hn::test
