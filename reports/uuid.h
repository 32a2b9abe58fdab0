#pragma once
// Random RFC 4122 version-4 UUIDs: CTRF report ids and baseline ids.

#include <string>
#include <string_view>

namespace hn::reports {

// "xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx" in lower case, from std::random_device.
std::string random_uuid();

// True for 8-4-4-4-12 hex digits (any version, either case).
bool is_uuid(std::string_view text);

}  // namespace hn::reports
