#include "compat/op_sources.h"

#include "compat/gzip_input.h"
#include "compat/input_error.h"
#include "compat/onnx_reader.h"
#include "compat/op_list_reader.h"
#include "compat/text_file.h"
#include "compat/trace_reader.h"

namespace hn::compat {

SourceFormat source_format_from_string(const std::string& s) {
  if (s == "auto") return SourceFormat::kAuto;
  if (s == "onnx") return SourceFormat::kOnnx;
  if (s == "trace") return SourceFormat::kTrace;
  if (s == "yaml") return SourceFormat::kOpListYaml;
  if (s == "text") return SourceFormat::kOpListText;
  throw InputError("command line", 0, 0, "--format",
                   "unknown format '" + s + "' (expected auto, onnx, trace, yaml or text)");
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The content decides where it is clear (JSON is a trace, binary is ONNX);
// the name decides between the text formats.
SourceFormat sniff(const std::string& path, const std::string& bytes) {
  std::size_t i = bytes.find_first_not_of(" \t\r\n");
  if (i != std::string::npos && (bytes[i] == '{' || bytes[i] == '[')) return SourceFormat::kTrace;
  for (unsigned char c : bytes.substr(0, 4096))
    if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) return SourceFormat::kOnnx;
  if (ends_with(path, ".onnx")) return SourceFormat::kOnnx;  // text in a .onnx: its error says so
  if (ends_with(path, ".json")) return SourceFormat::kTrace;
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return SourceFormat::kOpListYaml;
  if (i != std::string::npos && bytes.compare(i, 8, "version:") == 0)
    return SourceFormat::kOpListYaml;
  return SourceFormat::kOpListText;
}

}  // namespace

OpInventory read_op_source(const std::string& path, SourceFormat format) {
  // Only models and traces may be as large as kMaxModelBytes; an op list is
  // hand-written and held to the limit of every other input. The head
  // decides which, so a 2 GB op list is refused from its size, unread.
  std::size_t limit = kMaxModelBytes;
  if (format == SourceFormat::kOpListYaml || format == SourceFormat::kOpListText)
    limit = kMaxInputBytes;
  if (format == SourceFormat::kAuto) {
    const std::string head = read_file_head(path, 4096);
    if (!is_gzip(head) && sniff(path, head) != SourceFormat::kOnnx &&
        sniff(path, head) != SourceFormat::kTrace)
      limit = kMaxInputBytes;
  }
  std::string bytes;
  try {
    bytes = read_text_file(path, limit);
  } catch (const InputError& e) {
    if (limit != kMaxInputBytes || std::string(e.what()).find("too large") == std::string::npos)
      throw;
    throw InputError(path, 0, 0, "",
                     "file too large for an op list (the limit is 64 MiB; only ONNX models and "
                     "traces may reach 2047 MiB)");
  }
  // torch.profiler writes *.pt.trace.json.gz.
  if (is_gzip(bytes)) bytes = gunzip(bytes, path);
  if (format == SourceFormat::kAuto) format = sniff(path, bytes);
  if ((format == SourceFormat::kOpListYaml || format == SourceFormat::kOpListText ||
       format == SourceFormat::kAuto) &&
      bytes.size() > kMaxInputBytes)
    throw InputError(path, 0, 0, "",
                     "file too large for an op list (" + std::to_string(bytes.size()) +
                         " bytes; the limit is 64 MiB; only ONNX models and traces may reach "
                         "2047 MiB)");
  switch (format) {
    case SourceFormat::kOnnx:
      return read_onnx_bytes(bytes, path);
    case SourceFormat::kTrace:
      return read_trace_text(bytes, path);
    case SourceFormat::kOpListYaml:
      return read_op_list_yaml(bytes, path);
    case SourceFormat::kOpListText:
    case SourceFormat::kAuto:
      break;
  }
  return read_op_list_text(bytes, path);
}

}  // namespace hn::compat
