#pragma once
// The cpu_op complete events of a Chrome trace (torch.profiler,
// torch_npu), read with a SAX pass over the JSON instead of a document tree:
// only the fields the op inventory uses are kept, for only the events it
// uses, so memory follows the cpu_op events rather than the file (a
// document tree of a hostile 64 MiB trace of `{}` events took 1.7 GB; a
// tree costs 9 to 27 times the JSON). Through the guarded entry point
// (compat/json_input.h: size, nesting, number overflow as InputError).
//
// pid and tid are kept as their JSON text when they are scalars (numbers,
// strings, as torch writes them); a list or an object there becomes
// "(list)" / "(object)" instead of its whole text.
//
// Contract, as the trace reader defines it: the root is a list of events or
// an object whose "traceEvents" is one (the last one, if given twice); an
// event is kept when "cat" is "cpu_op" or "Operator" and "ph" is "X"; a kept
// event needs numbers "ts" and "dur" (dur >= 0), or strings that hold one
// (torch_npu's trace_view.json writes "ts": "1700000000123.456"). Syntax errors win over
// structure errors; the first structure error is thrown after the whole text
// parsed. Throws InputError (file, line:column or field).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hn::compat {

struct TraceOpEvent {
  std::size_t index = 0;  // position in traceEvents
  // Ids in TraceOpEvents::strings (0 is ""): a trace repeats a few thousand
  // names over millions of events, so each is kept once.
  std::uint32_t thread = 0;  // pid and tid as JSON text: "1/7", "\"main\"/null"
  std::uint32_t name = 0;    // the name when it starts with "aten::", else 0
  // From args, for aten:: events only: the first "Input type" entry that
  // names a tensor dtype (c10_dtype_name), and the length of the "Input Dims"
  // entry at the same position (-1 when there is none or it is not a list).
  std::uint32_t dtype = 0;
  int rank = -1;
  double ts = 0, dur = 0;
};

// At most this many cpu_op events are kept (InputError past it, naming the
// event): a real profile of a few steps of a large model holds a few hundred
// thousand, and each kept event costs memory beyond the file's own size
// (docs/security.md states the budget).
inline constexpr std::size_t kMaxTraceOps = 4000000;

struct TraceOpEvents {
  std::size_t total = 0;  // every event in traceEvents
  std::vector<TraceOpEvent> ops;
  std::vector<std::string> strings{""};
  const std::string& text(std::uint32_t id) const { return strings[id]; }
};

TraceOpEvents read_trace_op_events(const std::string& text, const std::string& file);

}  // namespace hn::compat
