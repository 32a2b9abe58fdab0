#pragma once
// ONNX shape inference, run in a child process under a memory and a time
// limit. libonnx's inference functions trust the model: a Scan without its
// num_scan_inputs attribute dereferences null (found by fuzz_op_parsers in its
// first second), and one with num_scan_inputs = 2^30 allocates 8 GiB from a
// 99-byte file. Inference only adds element types of intermediate values to
// the inventory, so whatever it does to its own process must not reach ours.
//
// Contract: infer_shapes_isolated() returns the model with value_info filled
// in, or nullopt and sets `why` ("killed by signal 11", "over its 1024 MiB
// memory limit", "no result within 60 s", or what inference threw). It never
// throws for what the model does, never leaves a child behind (the child dies
// with us: PR_SET_PDEATHSIG), and returns within `limit` plus the time to
// read its answer. The model should already have its weights dropped: it is
// sent back whole through a pipe.
#include <chrono>
#include <optional>
#include <string>

namespace onnx {
class ModelProto;
}

namespace hn::compat {

inline constexpr std::size_t kInferenceMemoryBytes = std::size_t{1} << 30;  // 1 GiB
inline constexpr std::chrono::seconds kInferenceTime{60};

std::optional<onnx::ModelProto> infer_shapes_isolated(
    const onnx::ModelProto& model, std::string& why,
    std::chrono::milliseconds limit = kInferenceTime);

}  // namespace hn::compat
