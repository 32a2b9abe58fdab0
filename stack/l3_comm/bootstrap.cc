#include "stack/l3_comm/bootstrap.h"

#include "compat/input_error.h"
#include "compat/text_file.h"

namespace hn::stack::comm {

Bootstrap bootstrap_from_env(const sched::EnvLookup& env, const BootstrapInputs& in) {
  Bootstrap b;
  b.identity = sched::detect_identity(env, sched::IdentityOptions{in.world_size});
  CommOptions& o = b.options;
  o.rank = b.identity.rank;
  o.world = b.identity.world;
  o.creds.world = o.world;
  o.creds.job_id = b.identity.job_id.empty() ? "default" : b.identity.job_id;
  if (!in.token_file.empty()) {
    std::string t = compat::read_text_file(in.token_file);
    auto nl = t.find_first_of("\r\n");
    if (nl != std::string::npos) t.resize(nl);
    if (t.empty())
      throw compat::InputError(in.token_file, 1, 0, "--token-file", "the token file is empty");
    o.creds.token = t;
  } else if (const char* t = env("HN_TOKEN"); t && *t) {
    o.creds.token = t;
  }
  if (o.world == 1) return b;
  if (o.creds.token.empty())
    throw compat::InputError(
        "environment", 0, 0, "HN_TOKEN",
        "no job token: set HN_TOKEN on every rank (e.g. HN_TOKEN=$(openssl rand -hex 32)) "
        "or pass --token-file; every connection is authenticated with it");
  if (std::string why = token_problem(o.creds.token); !why.empty())
    throw compat::InputError(in.token_file.empty() ? "environment" : in.token_file, 0, 0,
                             in.token_file.empty() ? "HN_TOKEN" : "--token-file", why);
  b.rendezvous = sched::resolve_rendezvous(env, b.identity, in.rendezvous);
  o.rendezvous_host = b.rendezvous.host;
  o.rendezvous_port = b.rendezvous.port;
  if (env("HN_STORE_FD") && o.rank == 0)
    o.store_fd = sched::env_int(env, "HN_STORE_FD", 0, 1 << 20);
  return b;
}

}  // namespace hn::stack::comm
