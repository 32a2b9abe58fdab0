#pragma once
// The rendezvous key-value store (Gloo style): ranks publish their
// addresses and wait for each other's. Values are opaque bytes.
//   set(key, value)          publish; a later set overwrites
//   get(key, timeout)        wait until key exists, return its value
//   wait(keys, timeout)      wait until every key exists
// Waits throw TimeoutError naming the missing keys when the timeout passes,
// AuthError/PeerDiedError when the rendezvous failed (bad token, foreign job,
// host gone). PrefixStore scopes keys per group so groups never collide.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace hn::stack::comm {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  virtual std::string get(const std::string& key, std::chrono::milliseconds timeout) = 0;
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
};

class PrefixStore : public Store {
 public:
  PrefixStore(Store& base, std::string prefix) : base_(base), prefix_(std::move(prefix) + "/") {}
  void set(const std::string& key, const std::string& value) override {
    base_.set(prefix_ + key, value);
  }
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    return base_.get(prefix_ + key, timeout);
  }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    std::vector<std::string> k;
    for (const auto& s : keys) k.push_back(prefix_ + s);
    base_.wait(k, timeout);
  }

 private:
  Store& base_;
  std::string prefix_;
};

}  // namespace hn::stack::comm
