#pragma once
// Internal to hn_l6_netplane: a raw NETLINK_ROUTE socket for the two
// requests libnl does not wrap (RTM_GETROUTE lookups and rule dumps with
// their flags). Every receive has a deadline, so a kernel that does not
// answer costs a SourceError, never a hang.

#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hn::stack::netplane::detail {

// A request being built: header, fixed part, attributes.
class NetlinkMessage {
 public:
  NetlinkMessage(std::uint16_t type, std::uint16_t flags, const void* fixed, std::size_t size);
  void add_attr(std::uint16_t type, const void* data, std::size_t size);
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buf_.data()); }
  const std::string& bytes() const { return buf_; }

 private:
  std::string buf_;
};

// ifindex -> name for this namespace, read once (if_nameindex(): one netlink
// dump) instead of one socket and ioctl per lookup as if_indextoname() costs.
class IfNames {
 public:
  IfNames();
  std::string operator()(std::uint32_t index) const;

 private:
  std::vector<std::pair<std::uint32_t, std::string>> names_;
};

struct NetlinkReply {
  int error = 0;                      // negative errno from NLMSG_ERROR, 0 when none
  std::vector<std::string> messages;  // each a whole nlmsghdr + payload
};

class NetlinkSocket {
 public:
  // Throws physical::SourceError when the socket cannot be opened.
  explicit NetlinkSocket(int timeout_ms = 1000);
  ~NetlinkSocket();
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;

  // Sends the message (its sequence number is set here) and collects the
  // answer: every message until NLMSG_DONE for a dump, else the one reply or
  // error. Throws physical::SourceError on a socket error or a timeout.
  NetlinkReply request(NetlinkMessage& message, bool dump);
  // Sends several single-answer requests in one datagram and returns one
  // reply per message, in order (the kernel answers them in sequence). At
  // most kMaxBatch messages, so the answers fit the receive buffer.
  std::vector<NetlinkReply> request_batch(std::vector<NetlinkMessage>& messages);
  static constexpr std::size_t kMaxBatch = 64;

 private:
  // Receives datagrams (each recv bounded by the socket's timeout) and hands
  // every message in them to on_message until it returns true. Throws
  // physical::SourceError on a receive error or a timeout.
  void receive_until(const std::function<bool(const nlmsghdr*)>& on_message);

  int fd_ = -1;
  std::uint32_t seq_ = 0;
  std::vector<char> buf_;
};

}  // namespace hn::stack::netplane::detail
