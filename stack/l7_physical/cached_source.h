#pragma once
// A PhysicalSource that reads each section of another source at most once
// and then serves that reading: one coherent view of the node for a whole
// run, instead of every probe walking sysfs again. Thread-safe (probes run
// concurrently); a read that throws is retried by the next caller.

#include <memory>

#include "stack/l7_physical/source.h"

namespace hn::stack::physical {

std::unique_ptr<PhysicalSource> make_cached_source(std::shared_ptr<const PhysicalSource> inner);

}  // namespace hn::stack::physical
