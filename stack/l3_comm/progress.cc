#include "stack/l3_comm/progress.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

int Schedule::send(int peer, const void* buf, std::size_t bytes, std::vector<int> gates) {
  Transfer t;
  t.peer = peer;
  t.send = true;
  t.buf = static_cast<std::byte*>(const_cast<void*>(buf));
  t.bytes = bytes;
  t.gates = std::move(gates);
  transfers.push_back(std::move(t));
  return static_cast<int>(transfers.size()) - 1;
}

int Schedule::recv(int peer, void* buf, std::size_t bytes) {
  Transfer t;
  t.peer = peer;
  t.buf = static_cast<std::byte*>(buf);
  t.bytes = bytes;
  transfers.push_back(std::move(t));
  return static_cast<int>(transfers.size()) - 1;
}

int Schedule::recv_reduce(int peer, void* dst, const void* accum, std::size_t bytes, bool finish_avg) {
  int i = recv(peer, dst, bytes);
  transfers[i].reduce = true;
  transfers[i].accum = static_cast<const std::byte*>(accum);
  transfers[i].finish_avg = finish_avg;
  return i;
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

struct Queue {
  int peer;
  bool send;
  std::vector<int> idx;
  std::size_t head = 0;
};

struct Carry {
  std::byte b[8];
  std::size_t n = 0;
};

std::size_t allowed_bytes(const Schedule& s, const Transfer& t) {
  std::size_t a = t.bytes;
  for (int g : t.gates) a = std::min(a, s.transfers[g].ready);
  return a;
}

// Delivers a piece of a reducing receive: whole elements are reduced
// straight from the transport's memory; a split element waits in carry.
void reduce_piece(const Schedule& s, Transfer& t, Carry& c, const std::byte* p, std::size_t len) {
  const std::size_t esz = op::dtype_size(s.dtype);
  auto apply = [&](const std::byte* src, std::size_t elems) {
    std::size_t off = t.ready;
    op::reduce_to(s.dtype, s.op, t.buf + off, t.accum + off, src, elems);
    if (t.finish_avg) op::finalize_avg(s.dtype, t.buf + off, elems, s.avg_divisor);
    t.ready += elems * esz;
  };
  if (c.n) {
    std::size_t take = std::min(esz - c.n, len);
    std::memcpy(c.b + c.n, p, take);
    c.n += take;
    p += take;
    len -= take;
    if (c.n < esz) return;
    apply(c.b, 1);
    c.n = 0;
  }
  std::size_t whole = len / esz;
  if (whole) apply(p, whole);
  std::size_t rest = len - whole * esz;
  std::memcpy(c.b, p + whole * esz, rest);
  c.n = rest;
}

bool started(const Schedule& s, const Transfer& t) {
  for (int a : t.after)
    if (s.transfers[a].done < s.transfers[a].bytes) return false;
  return true;
}

std::string pending_text(const Schedule& s, const std::vector<Queue>& queues) {
  std::string out;
  int shown = 0;
  for (const auto& q : queues) {
    if (q.head >= q.idx.size()) continue;
    const Transfer& t = s.transfers[q.idx[q.head]];
    if (shown++ == 6) {
      out += "; ...";
      break;
    }
    if (!out.empty()) out += "; ";
    out += (t.send ? "sending to rank " : "receiving from rank ") + std::to_string(q.peer) + " (" +
           std::to_string(t.done) + " of " + std::to_string(t.bytes) + " bytes";
    if (t.send && allowed_bytes(s, t) <= t.done && t.done < t.bytes) out += ", waiting for its input";
    out += ")";
  }
  return out;
}

}  // namespace

void run_schedule(Device& device, Schedule& s, Clock::time_point deadline, const AbortState& abort,
                  ErrorContext ctx) {
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0); };
  std::vector<Queue> queues;
  for (int i = 0; i < static_cast<int>(s.transfers.size()); ++i) {
    Transfer& t = s.transfers[i];
    t.done = t.ready = 0;
    auto it = std::find_if(queues.begin(), queues.end(),
                           [&](const Queue& q) { return q.peer == t.peer && q.send == t.send; });
    if (it == queues.end()) {
      queues.push_back(Queue{t.peer, t.send, {}, 0});
      it = queues.end() - 1;
    }
    it->idx.push_back(i);
  }
  std::vector<Carry> carry(s.transfers.size());
  std::vector<Pair*> wait_send, wait_recv;

  for (;;) {
    bool progressed = false, all_done = true;
    try {
      for (auto& q : queues) {
        while (q.head < q.idx.size()) {
          const int ti = q.idx[q.head];
          Transfer& t = s.transfers[ti];
          if (t.done < t.bytes && !started(s, t)) break;
          if (t.send) {
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
              n = p.try_recv(t.bytes - t.done, [&](const std::byte* d, std::size_t len) {
                reduce_piece(s, t, carry[ti], d, len);
              });
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
        all_done &= q.head >= q.idx.size();
      }
    } catch (const LinkError& e) {
      // A broken link is often the echo of a death elsewhere: give the
      // watch channel a moment to name the rank that really died.
      for (int i = 0; i < 30 && !abort.is_set(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (abort.is_set()) throw_aborted(abort, ctx);
      ErrorContext c = ctx;
      c.peer_rank = e.context().peer_rank;
      c.peer_address = e.context().peer_address;
      c.elapsed = elapsed();
      if (auto* pd = dynamic_cast<const PeerDiedError*>(&e)) throw PeerDiedError(pd->dead_rank(), e.detail(), c);
      throw LinkError(e.kind(), e.detail(), c);
    }
    if (all_done) return;
    if (progressed) continue;
    if (abort.is_set()) throw_aborted(abort, ctx);
    if (Clock::now() >= deadline) {
      ErrorContext c = ctx;
      c.elapsed = elapsed();
      for (const auto& q : queues)
        if (q.head < q.idx.size()) {
          c.peer_rank = q.peer;
          c.peer_address = device.pair(q.peer).address();
          break;
        }
      throw TimeoutError("no progress before the deadline: " + pending_text(s, queues), c);
    }
    wait_send.clear();
    wait_recv.clear();
    for (const auto& q : queues) {
      if (q.head >= q.idx.size()) continue;
      const Transfer& t = s.transfers[q.idx[q.head]];
      if (!started(s, t)) continue;
      if (!t.send) wait_recv.push_back(&device.pair(q.peer));
      else if (allowed_bytes(s, t) > t.done) wait_send.push_back(&device.pair(q.peer));
    }
    device.wait(wait_send, wait_recv, deadline);
  }
}

}  // namespace hn::stack::comm
