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
// event needs numbers "ts" and "dur" (dur >= 0). Syntax errors win over
// structure errors; the first structure error is thrown after the whole text
// parsed. Throws InputError (file, line:column or field).

#include <cstddef>
#include <string>
#include <vector>

namespace hn::compat {

struct TraceOpEvent {
  std::size_t index = 0;  // position in traceEvents
  std::string thread;     // pid and tid as JSON text: "1/7", "\"main\"/null"
  double ts = 0, dur = 0;
  std::string name;  // "name" when it is a string
  // From args, for aten:: events only: the first "Input type" entry that
  // names a tensor dtype (c10_dtype_name), and the length of the "Input Dims"
  // entry at the same position (-1 when there is none or it is not a list).
  std::string dtype;
  int rank = -1;
};

struct TraceOpEvents {
  std::size_t total = 0;  // every event in traceEvents
  std::vector<TraceOpEvent> ops;
};

TraceOpEvents read_trace_op_events(const std::string& text, const std::string& file);

}  // namespace hn::compat
