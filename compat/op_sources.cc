#include "compat/op_sources.h"

#include <zlib.h>

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

bool gzipped(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// torch.profiler writes *.pt.trace.json.gz; inflated here, within the same
// size cap as any model file.
std::string gunzip(const std::string& bytes, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    throw InputError(path, 0, 0, "", "cannot start gzip decompression");
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      throw InputError(path, 0, 0, "",
                       "not a valid gzip file (" + std::string(z.msg ? z.msg : "corrupt data") +
                           ") after " + std::to_string(out.size()) + " bytes");
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > kMaxModelBytes) {
      inflateEnd(&z);
      throw InputError(path, 0, 0, "", "decompresses to more than the size limit for models");
    }
    if (rc != Z_STREAM_END && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      throw InputError(path, 0, 0, "", "truncated gzip file");
    }
  }
  inflateEnd(&z);
  return out;
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
  std::string bytes = read_text_file(path, kMaxModelBytes);
  if (gzipped(bytes)) bytes = gunzip(bytes, path);
  if (format == SourceFormat::kAuto) format = sniff(path, bytes);
  // Only models and traces may be as large as kMaxModelBytes; an op list is
  // hand-written and held to the limit of every other input.
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
