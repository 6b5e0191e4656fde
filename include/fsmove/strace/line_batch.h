// Stage 1 of the threaded analysis: a batch of trace lines in the buffer the reader read them
// into (uncopied: the batch and the reader exchange buffers), each with its head (pid, kind,
// syscall name, where its return value starts) already parsed, so that stage 2 (call assembly,
// lowering, interpreting) only looks at the lines it models. A batch is reused from one fill to the
// next: no allocation per line.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fsmove/strace/args.h"
#include "fsmove/strace/line_reader.h"
#include "fsmove/strace/strace_line.h"

namespace fsmove::strace {

inline constexpr uint32_t kNoReturn = UINT32_MAX;
inline constexpr uint32_t kNotSplit = UINT32_MAX;

// One line of a batch. Offsets are into LineBatch::bytes (start) or into the line (the rest).
struct BatchedLine {
  uint32_t start = 0;
  uint32_t size = 0;
  uint32_t name_at = 0;
  uint32_t name_size = 0;
  uint32_t rest_at = 0;
  uint32_t rest_size = 0;
  uint32_t return_at = kNoReturn;  // in rest; kNoReturn when not found or not looked for
  int32_t pid = 0;
  int32_t syscall = -1;  // BatchOptions::syscall_index of the name
  int8_t returned_negative = -1;
  bool no_spliced_notice = false;
  int32_t other_pid = -1;
  uint32_t split = kNotSplit;  // where its arguments start in LineBatch::splits
  LineKind kind = LineKind::kGarbage;
  bool has_pid = false;
  bool cut = false;           // longer than the reader's limit: only its start was kept
  bool unterminated = false;  // the trace's last line, without a newline
  const char* garbage_reason = nullptr;
};

// A batch is either split into lines already (kSplit), or a run of whole lines not yet split
// (kRaw: bytes [chunk_begin, chunk_end)), which either thread of the pipeline may claim
// (kSplitting) and split with SplitChunk.
enum class BatchState : uint8_t { kSplit, kRaw, kSplitting };

struct LineBatch {
  std::vector<char> bytes;  // the reader's buffer of the batch's read; its size is capacity
  std::vector<BatchedLine> lines;
  // The arguments of the whole calls BatchOptions::args_read names, as SplitChunk split them
  // (ArgList::SaveTo): stage 2, which holds the modelling, does not scan them again.
  std::vector<uint32_t> splits;
  uint64_t first_line_number = 0;  // of lines[0]; of a raw chunk's, set by whoever counts
  bool last = false;               // no batch follows: end of input or read error
  std::atomic<BatchState> state{BatchState::kSplit};
  uint32_t chunk_begin = 0;
  uint32_t chunk_end = 0;

  std::string_view Text(const BatchedLine& l) const {
    return std::string_view(bytes.data() + l.start, l.size);
  }
  // The head as ParseLineHead gave it, pointing into this batch.
  LineHead Head(const BatchedLine& l) const;
};

struct BatchOptions {
  // A batch closes at the first line past this size, at max_lines, or at the end of what one
  // read brought (the reader's buffer is made target_bytes, at least 4 KiB).
  size_t target_bytes = 256u << 10;
  size_t max_lines = 8192;
  // Looks a call's name up in the caller's syscall table (the analyzer's), so that the second
  // stage need not read the name again. Null: not looked up.
  int32_t (*syscall_index)(std::string_view name) = nullptr;
  // Whether the caller reads the arguments of every whole call with this index in its syscall
  // table: SplitChunk then splits them (LineBatch::splits). Null: none.
  bool (*args_read)(int32_t syscall) = nullptr;
};

// Fills `batch` with the reader's next lines, left where the reader read them (it reads only
// when no whole line is buffered). Sets batch->last when the input has no more lines (end of input
// or a read error: the reader's status() says which). A batch whose reader's buffer grew past 4x
// target_bytes for a long line gets copies of its lines instead, over-long (cut) ones only
// their first kCutLineKeptBytes (all stage 2 reports of them), so memory stays bounded by
// the ring's slots and the line limit.
// `names`, when given, is the calling thread's NameIndex over options.syscall_index, kept from
// batch to batch so that a name is looked up once per thread, not once per batch; without it a
// batch makes its own.
void FillBatch(LineReader& reader, const BatchOptions& options, LineBatch* batch,
               NameIndex* names = nullptr);

inline constexpr size_t kCutLineKeptBytes = 4096;

// Takes the reader's next run of whole lines as the batch's raw chunk (state kRaw, lines left
// empty: SplitChunk makes them, on either thread), uncopied as FillBatch keeps its lines; when
// the reader cannot give one (see LineReader::NextChunk), or its buffer grew for a long line,
// fills the batch as FillBatch does (state kSplit). Either way lines are numbered by the
// consumer, which counts them: first_line_number is not set.
void TakeChunkOrFill(LineReader& reader, const BatchOptions& options, LineBatch* batch,
                     NameIndex* names = nullptr);
// Splits a raw chunk into lines with their heads parsed, exactly as FillBatch would have
// (a line over max_line_bytes is cut and not parsed), and the arguments of the whole calls
// options.args_read names (FillBatch leaves them to the caller: its lines may be copied out).
// Does not change the batch's state.
void SplitChunk(const BatchOptions& options, size_t max_line_bytes, LineBatch* batch,
                NameIndex* names = nullptr);

}  // namespace fsmove::strace
