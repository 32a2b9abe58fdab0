#include "preflight/certify/control.h"

namespace hn::preflight::certify {

namespace {
// The rendezvous is the launcher's address: its connections keep the link
// budget and retries but never a plane binding (as in communicator.cc).
comm::LinkParams rendezvous_params(comm::LinkParams p) {
  p.bind_address.clear();
  p.bind_interface.clear();
  p.family = AF_UNSPEC;
  return p;
}
}  // namespace

Control::Control(comm::CommOptions options, DeathFn on_death)
    : opt_(std::move(options)), on_death_(std::move(on_death)) {
  opt_.creds.world = opt_.world;
  const comm::LinkParams params = rendezvous_params(opt_.link);
  comm::ErrorContext ctx;
  ctx.local_rank = opt_.rank;
  ctx.plane = params.plane;
  ctx.operation = "certify rendezvous";
  if (opt_.rank == 0) {
    comm::Fd listener = opt_.store_fd >= 0 ? comm::Fd(opt_.store_fd)
                                           : comm::listen_on("", opt_.rendezvous_port, params, ctx);
    opt_.store_fd = -1;
    // A job of one rank has no rendezvous address (nothing to meet): rank 0
    // serves on a port of its own and talks to itself over loopback.
    if (opt_.rendezvous_port == 0) {
      opt_.rendezvous_port = comm::local_port_of(listener.get());
      opt_.rendezvous_host = "127.0.0.1";
    }
    server_ = std::make_unique<comm::TcpStoreServer>(std::move(listener), opt_.creds,
                                                     params.connect_timeout, params.plane);
  }
  client_ = std::make_unique<comm::TcpStoreClient>(opt_.rendezvous_host, opt_.rendezvous_port,
                                                   params, opt_.creds, opt_.rank);
  client_->start_watch([this](int rank, const std::string& why) {
    {
      std::lock_guard lk(mu_);
      dead_.insert(rank);
    }
    if (on_death_) on_death_(rank, why);
  });
}

Control::~Control() {
  leave(std::uncaught_exceptions() == 0);
  client_.reset();
  server_.reset();
}

std::set<int> Control::dead() const {
  std::lock_guard lk(mu_);
  return dead_;
}

void Control::finish(comm::Deadline deadline) {
  if (server_) server_->wait_departures(deadline);
}

void Control::leave(bool goodbye) {
  if (client_) client_->close(goodbye);
}

}  // namespace hn::preflight::certify
