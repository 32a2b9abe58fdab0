#include "preflight/certify/plane_comm.h"

#include <unistd.h>

#include <stdexcept>

#include "preflight/certify/plane_bind.h"

namespace hn::preflight::certify {

PlaneComm make_plane_comm(RankState& st, const std::string& plane, milliseconds link_budget,
                          Deadline deadline, const std::string& purpose) {
  PlaneBinding b = plane_binding(st, plane);
  // Every rank takes part, even one that cannot bind: the others must not
  // wait for it until their deadline. It joins unbound and fails after.
  comm::CommOptions o = st.base;
  o.group = "certify-" + purpose + "-" + plane;
  o.transport = comm::TransportKind::kAuto;
  o.link = comm::LinkParams{};
  o.link.plane = plane;
  // Setting up never outlasts the phase: a stopped peer costs what is left
  // of the deadline, not a whole link budget past it.
  o.link.connect_timeout =
      std::max(milliseconds(1),
               std::min(link_budget, std::chrono::ceil<milliseconds>(deadline - Clock::now())));
  o.link.budget_source = "--link-timeout";
  o.link.bind_address = b.bind.address;
  if (!b.bind.address.empty()) o.link.bind_source = "the profile's plane " + plane;
  // Setting up waits for every rank at most one link budget: a rank that
  // died before joining this plane's rendezvous cannot hold the others until
  // the phase's deadline (a death after joining aborts them at once). Every
  // collective afterwards passes its own timeout (until()).
  o.timeout =
      std::max(milliseconds(1),
               std::min(link_budget, std::chrono::ceil<milliseconds>(deadline - Clock::now())));
  const std::string key = purpose + "/" + plane + "/rdv";
  comm::Fd listener;
  if (st.rank == 0) {
    comm::ErrorContext ctx;
    ctx.local_rank = 0;
    ctx.plane = plane;
    ctx.operation = "plane rendezvous";
    comm::LinkParams any;
    any.plane = plane;
    listener = comm::listen_on("", 0, any, ctx);
    o.rendezvous_port = comm::local_port_of(listener.get());
    o.store_fd = dup(listener.get());
    st.store().set(key, std::to_string(o.rendezvous_port));
  } else {
    o.store_fd = -1;
    o.rendezvous_port = std::stoi(st.store().get(key, o.timeout));
  }
  PlaneComm out;
  out.comm = std::make_unique<comm::Communicator>(o);
  if (!b.bind.error.empty())
    throw std::runtime_error("this host cannot bind plane " + plane + ": " + b.bind.error);
  out.nics = b.nics;
  out.address = b.bind.address;
  return out;
}

comm::Options until(Deadline deadline) {
  comm::Options o;
  o.timeout = std::max(milliseconds(1), std::chrono::ceil<milliseconds>(deadline - Clock::now()));
  return o;
}

}  // namespace hn::preflight::certify
