#include "stack/l3_comm/progress.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

void Schedule::clear(op::DType t, op::ReduceOp o, int divisor) {
  dtype = t;
  op = o;
  avg_divisor = divisor;
  transfers.clear();
  deps.clear();
}

int Schedule::send(int peer, const void* buf, std::size_t bytes, std::initializer_list<int> gates) {
  Transfer& t = transfers.emplace_back();
  t.peer = peer;
  t.send = true;
  t.buf = static_cast<std::byte*>(const_cast<void*>(buf));
  t.bytes = bytes;
  t.gate_first = static_cast<std::uint32_t>(deps.size());
  t.gate_count = static_cast<std::uint32_t>(gates.size());
  deps.insert(deps.end(), gates.begin(), gates.end());
  return static_cast<int>(transfers.size()) - 1;
}

int Schedule::send(int peer, const void* buf, std::size_t bytes, const std::vector<int>& gates) {
  int i = send(peer, buf, bytes);
  transfers[i].gate_first = static_cast<std::uint32_t>(deps.size());
  transfers[i].gate_count = static_cast<std::uint32_t>(gates.size());
  deps.insert(deps.end(), gates.begin(), gates.end());
  return i;
}

int Schedule::recv(int peer, void* buf, std::size_t bytes) {
  Transfer& t = transfers.emplace_back();
  t.peer = peer;
  t.buf = static_cast<std::byte*>(buf);
  t.bytes = bytes;
  return static_cast<int>(transfers.size()) - 1;
}

int Schedule::recv_reduce(int peer, void* dst, const void* accum, std::size_t bytes,
                          bool finish_avg) {
  int i = recv(peer, dst, bytes);
  transfers[i].reduce = true;
  transfers[i].accum = static_cast<const std::byte*>(accum);
  transfers[i].finish_avg = finish_avg;
  return i;
}

void Schedule::set_after(int transfer, std::initializer_list<int> deps_list) {
  transfers[transfer].after_first = static_cast<std::uint32_t>(deps.size());
  transfers[transfer].after_count = static_cast<std::uint32_t>(deps_list.size());
  deps.insert(deps.end(), deps_list.begin(), deps_list.end());
}

void AbortState::set(int dead_rank, const std::string& reason) {
  std::lock_guard lk(mu_);
  if (flag_.load(std::memory_order_relaxed)) return;  // the first cause wins
  dead_rank_ = dead_rank;
  reason_ = reason;
  flag_.store(true, std::memory_order_release);
}

int AbortState::dead_rank() const {
  std::lock_guard lk(mu_);
  return dead_rank_;
}

std::string AbortState::reason() const {
  std::lock_guard lk(mu_);
  return reason_;
}

void throw_aborted(const AbortState& abort, ErrorContext ctx) {
  int dead = abort.dead_rank();
  if (dead >= 0) {
    ctx.peer_rank = dead;
    ctx.peer_address.clear();
    throw PeerDiedError(dead, abort.reason(), ctx);
  }
  throw AuthError(abort.reason(), ctx);
}

namespace {

using Queue = Schedule::Queue;

std::size_t allowed_bytes(const Schedule& s, const Transfer& t) {
  std::size_t a = t.bytes;
  for (std::uint32_t i = 0; i < t.gate_count; ++i)
    a = std::min(a, s.transfers[s.deps[t.gate_first + i]].ready);
  return a;
}

bool started(const Schedule& s, const Transfer& t) {
  for (std::uint32_t i = 0; i < t.after_count; ++i) {
    const Transfer& a = s.transfers[s.deps[t.after_first + i]];
    if (a.done < a.bytes) return false;
  }
  return true;
}

// Delivers a piece of a reducing receive: whole elements are reduced
// straight from the transport's memory; a split element waits in carry
// (8 bytes, then its length).
void reduce_piece(const Schedule& s, Transfer& t, std::uint8_t* carry, const std::byte* p,
                  std::size_t len) {
  const std::size_t esz = op::dtype_size(s.dtype);
  auto apply = [&](const std::byte* src, std::size_t elems) {
    std::size_t off = t.ready;
    op::reduce_to(s.dtype, s.op, t.buf + off, t.accum + off, src, elems);
    if (t.finish_avg) op::finalize_avg(s.dtype, t.buf + off, elems, s.avg_divisor);
    t.ready += elems * esz;
  };
  std::uint8_t& have = carry[8];
  if (have) {
    std::size_t take = std::min(esz - have, len);
    std::memcpy(carry + have, p, take);
    have = static_cast<std::uint8_t>(have + take);
    p += take;
    len -= take;
    if (have < esz) return;
    apply(reinterpret_cast<const std::byte*>(carry), 1);
    have = 0;
  }
  std::size_t whole = len / esz;
  if (whole) apply(p, whole);
  std::size_t rest = len - whole * esz;
  std::memcpy(carry, p + whole * esz, rest);
  have = static_cast<std::uint8_t>(rest);
}

std::string pending_text(const Schedule& s) {
  std::string out;
  int shown = 0;
  for (const auto& q : s.queues) {
    if (q.head >= q.count) continue;
    const Transfer& t = s.transfers[s.order[q.first + q.head]];
    if (shown++ == 6) {
      out += "; ...";
      break;
    }
    if (!out.empty()) out += "; ";
    out += (t.send ? "sending to rank " : "receiving from rank ") + std::to_string(q.peer) + " (" +
           std::to_string(t.done) + " of " + std::to_string(t.bytes) + " bytes";
    if (t.send && allowed_bytes(s, t) <= t.done && t.done < t.bytes)
      out += ", waiting for its input";
    out += ")";
  }
  return out;
}

}  // namespace

void run_schedule(Device& device, Schedule& s, std::chrono::milliseconds timeout,
                  const AbortState& abort, const ErrorContext& ctx) {
  // The clock is read only once the transport's short spin found nothing to
  // do: a collective whose peers are there never reads it (in a VM a clock
  // read costs about a tenth of an 8-byte allreduce).
  Clock::time_point t0{}, deadline{};
  bool armed = false;
  auto elapsed = [&] {
    return armed ? std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0)
                 : std::chrono::milliseconds(0);
  };
  // Group transfers into per-(peer, direction) queues, in schedule order.
  const int nt = static_cast<int>(s.transfers.size());
  s.queues.clear();
  for (int i = 0; i < nt; ++i) {
    Transfer& t = s.transfers[i];
    t.done = t.ready = 0;
    bool found = false;
    for (auto& q : s.queues)
      if (q.peer == t.peer && q.send == t.send) {
        ++q.count;
        found = true;
        break;
      }
    if (!found) s.queues.push_back(Queue{t.peer, t.send, 0, 1, 0});
  }
  std::uint32_t first = 0;
  for (auto& q : s.queues) {
    q.first = first;
    first += q.count;
    q.count = 0;
  }
  s.order.resize(nt);
  for (int i = 0; i < nt; ++i) {
    const Transfer& t = s.transfers[i];
    for (auto& q : s.queues)
      if (q.peer == t.peer && q.send == t.send) {
        s.order[q.first + q.count++] = i;
        break;
      }
  }
  s.carry.assign(static_cast<std::size_t>(nt) * 9, 0);
  device.begin_schedule();

  for (;;) {
    bool progressed = false, all_done = true;
    try {
      for (auto& q : s.queues) {
        while (q.head < q.count) {
          const int ti = s.order[q.first + q.head];
          Transfer& t = s.transfers[ti];
          if (t.done < t.bytes && !started(s, t)) break;
          if (t.mail) {
            if (t.done == t.bytes) {
              ++q.head;  // done, or empty
              continue;
            }
            Pair& p = device.pair(q.peer);
            if (t.send) {
              p.mail_send(t.buf, t.bytes);
              t.done = t.bytes;
            } else if (t.reduce) {
              std::uint8_t* carry = &s.carry[static_cast<std::size_t>(ti) * 9];
              auto sink = [&](const std::byte* d, std::size_t len) {
                reduce_piece(s, t, carry, d, len);
              };
              if (p.try_mail_recv(t.bytes, sink)) t.done = t.bytes;
            } else {
              auto sink = [&](const std::byte* d, std::size_t len) { std::memcpy(t.buf, d, len); };
              if (p.try_mail_recv(t.bytes, sink)) t.done = t.ready = t.bytes;
            }
            progressed |= t.done == t.bytes;
            if (t.done < t.bytes) break;
            ++q.head;
            continue;
          } else if (t.send) {
            std::size_t allowed = allowed_bytes(s, t);
            if (t.done < allowed) {
              std::size_t n = device.pair(q.peer).try_send(t.buf + t.done, allowed - t.done);
              t.done += n;
              progressed |= n > 0;
            }
          } else if (t.done < t.bytes) {
            Pair& p = device.pair(q.peer);
            std::size_t n;
            if (t.reduce) {
              std::uint8_t* carry = &s.carry[static_cast<std::size_t>(ti) * 9];
              auto sink = [&](const std::byte* d, std::size_t len) {
                reduce_piece(s, t, carry, d, len);
              };
              n = p.try_recv(t.bytes - t.done, sink);
            } else {
              n = p.try_recv_into(t.buf + t.done, t.bytes - t.done);
            }
            t.done += n;
            if (!t.reduce) t.ready = t.done;
            progressed |= n > 0;
          }
          if (t.done < t.bytes) break;
          ++q.head;
        }
        all_done &= q.head >= q.count;
      }
    } catch (const LinkError& e) {
      // A broken link is often the echo of a death elsewhere: give the
      // watch channel a moment to name the rank that really died.
      for (int i = 0; i < 30 && !abort.is_set(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (abort.is_set()) throw_aborted(abort, ctx);
      ErrorContext c = ctx;
      c.peer_rank = e.context().peer_rank;
      c.peer_address = e.context().peer_address;
      c.elapsed = elapsed();
      if (auto* pd = dynamic_cast<const PeerDiedError*>(&e))
        throw PeerDiedError(pd->dead_rank(), e.detail(), c);
      throw LinkError(e.kind(), e.detail(), c);
    }
    if (all_done) return;
    if (progressed) continue;
    if (abort.is_set()) throw_aborted(abort, ctx);
    s.wait_send.clear();
    s.wait_recv.clear();
    for (const auto& q : s.queues) {
      if (q.head >= q.count) continue;
      const Transfer& t = s.transfers[s.order[q.first + q.head]];
      if (!started(s, t)) continue;
      if (!t.send)
        s.wait_recv.push_back(&device.pair(q.peer));
      else if (allowed_bytes(s, t) > t.done)
        s.wait_send.push_back(&device.pair(q.peer));
    }
    if (!armed) {
      if (device.spin(s.wait_send, s.wait_recv)) continue;
      armed = true;
      t0 = Clock::now();
      deadline = t0 + timeout;
    } else if (Clock::now() >= deadline) {
      ErrorContext c = ctx;
      c.elapsed = elapsed();
      for (const auto& q : s.queues)
        if (q.head < q.count) {
          c.peer_rank = q.peer;
          c.peer_address = device.pair(q.peer).address();
          break;
        }
      throw TimeoutError("no progress before the deadline: " + pending_text(s), c);
    }
    device.wait(s.wait_send, s.wait_recv, deadline);
  }
}

}  // namespace hn::stack::comm
