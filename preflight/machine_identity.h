#pragma once
// The identity of the machine a run measured on: what `gate` compares before
// it trusts a baseline (a bench run from another host, kernel or NIC is not
// the same measurement). Read from the live kernel: uname(2), /proc/cpuinfo
// and /sys/class/net (the NICs backed by a device: name, driver, speed).
// Never throws: a source that cannot be read leaves its field empty.
//
// JSON form (bench JSON "machine", certificate hosts[].machine,
// docs/bench-schema.md): {"host", "cpu", "kernel", "nics": [{"name",
// "driver", "speed_mbps"}]}; speed_mbps is null when the link reports none.

#include <nlohmann/json.hpp>
#include <string>

namespace hn::preflight {

nlohmann::json machine_identity();

}  // namespace hn::preflight
