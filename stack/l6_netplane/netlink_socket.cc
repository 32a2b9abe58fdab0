#include "stack/l6_netplane/netlink_socket.h"

#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "stack/l7_physical/source.h"

namespace hn::stack::netplane::detail {

namespace {
std::string errno_text(const char* what) {
  return std::string("netlink: ") + what + ": " + std::strerror(errno);
}
}  // namespace

IfNames::IfNames() {
  if (struct if_nameindex* all = if_nameindex()) {
    for (struct if_nameindex* i = all; i->if_index != 0; ++i)
      names_.emplace_back(i->if_index, i->if_name);
    if_freenameindex(all);
  }
}

std::string IfNames::operator()(std::uint32_t index) const {
  for (const auto& [i, name] : names_)
    if (i == index) return name;
  char buf[IF_NAMESIZE] = {};  // a NIC that appeared since: ask the kernel
  return if_indextoname(index, buf) ? buf : "if" + std::to_string(index);
}

NetlinkMessage::NetlinkMessage(std::uint16_t type, std::uint16_t flags, const void* fixed,
                               std::size_t size) {
  buf_.assign(NLMSG_LENGTH(size), '\0');
  nlmsghdr* h = header();
  h->nlmsg_len = static_cast<std::uint32_t>(buf_.size());
  h->nlmsg_type = type;
  h->nlmsg_flags = flags;
  std::memcpy(NLMSG_DATA(h), fixed, size);
  buf_.resize(NLMSG_ALIGN(buf_.size()), '\0');
}

void NetlinkMessage::add_attr(std::uint16_t type, const void* data, std::size_t size) {
  nlattr a{};
  a.nla_type = type;
  a.nla_len = static_cast<std::uint16_t>(NLA_HDRLEN + size);
  buf_.append(reinterpret_cast<const char*>(&a), sizeof a);
  buf_.append(static_cast<const char*>(data), size);
  buf_.resize(NLMSG_ALIGN(buf_.size()), '\0');
  header()->nlmsg_len = static_cast<std::uint32_t>(buf_.size());
}

NetlinkSocket::NetlinkSocket(int timeout_ms) : buf_(64 * 1024) {
  fd_ = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd_ < 0) throw physical::SourceError(errno_text("cannot open a NETLINK_ROUTE socket"));
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int rcvbuf = 1 << 20;  // room for a whole batch of answers
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  if (bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    close(fd_);
    throw physical::SourceError(errno_text("cannot bind a NETLINK_ROUTE socket"));
  }
  seq_ = static_cast<std::uint32_t>(std::time(nullptr));
}

std::vector<NetlinkReply> NetlinkSocket::request_batch(std::vector<NetlinkMessage>& messages) {
  if (messages.size() > kMaxBatch)
    throw std::logic_error("netlink: a batch holds at most " + std::to_string(kMaxBatch));
  std::vector<NetlinkReply> replies(messages.size());
  if (messages.empty()) return replies;
  std::string datagram;
  const std::uint32_t first = seq_ + 1;
  for (auto& m : messages) {
    m.header()->nlmsg_seq = ++seq_;
    datagram += m.bytes();
  }
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(fd_, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof kernel) < 0)
    throw physical::SourceError(errno_text("send failed"));
  std::vector<bool> answered(messages.size(), false);
  std::size_t pending = messages.size();
  receive_until([&](const nlmsghdr* m) {
    std::uint32_t i = m->nlmsg_seq - first;
    if (m->nlmsg_seq < first || i >= messages.size() || answered[i]) return false;  // stale
    answered[i] = true;
    --pending;
    if (m->nlmsg_type == NLMSG_ERROR)
      replies[i].error = static_cast<const nlmsgerr*>(NLMSG_DATA(m))->error;
    else
      replies[i].messages.emplace_back(reinterpret_cast<const char*>(m), m->nlmsg_len);
    return pending == 0;
  });
  return replies;
}

NetlinkSocket::~NetlinkSocket() {
  if (fd_ >= 0) close(fd_);
}

NetlinkReply NetlinkSocket::request(NetlinkMessage& message, bool dump) {
  nlmsghdr* h = message.header();
  h->nlmsg_seq = ++seq_;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(fd_, message.bytes().data(), message.bytes().size(), 0,
             reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
    throw physical::SourceError(errno_text("send failed"));
  NetlinkReply reply;
  receive_until([&](const nlmsghdr* m) {
    if (m->nlmsg_seq != seq_) return false;  // a stale answer to an earlier request
    if (m->nlmsg_type == NLMSG_DONE) return true;
    if (m->nlmsg_type == NLMSG_ERROR) {
      reply.error = static_cast<const nlmsgerr*>(NLMSG_DATA(m))->error;
      return true;
    }
    reply.messages.emplace_back(reinterpret_cast<const char*>(m), m->nlmsg_len);
    return !dump;
  });
  return reply;
}

void NetlinkSocket::receive_until(const std::function<bool(const nlmsghdr*)>& on_message) {
  for (;;) {
    ssize_t n = recv(fd_, buf_.data(), buf_.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        throw physical::SourceError("netlink: the kernel did not answer within the deadline");
      throw physical::SourceError(errno_text("receive failed"));
    }
    int len = static_cast<int>(n);
    for (auto* m = reinterpret_cast<nlmsghdr*>(buf_.data()); NLMSG_OK(m, len);
         m = NLMSG_NEXT(m, len))
      if (on_message(m)) return;
  }
}

}  // namespace hn::stack::netplane::detail
