// Analyzer::RunThreaded: stage 1 (reading, line splitting, heads) on a thread of its own,
// stage 2 (calls, lowering, interpreting) on the caller's, joined by a bounded ring of
// batches. The split follows the profile: stage 1 is the per-byte work, stage 2 the
// per-call work, and on unfiltered traces they cost about the same.
#include <thread>

#include "absl/strings/str_cat.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/strace/spsc_ring.h"

namespace fsmove::analysis {

void Analyzer::FeedBatch(const strace::LineBatch& batch, size_t max_line_bytes) {
  uint64_t number = batch.first_line_number;
  for (const strace::BatchedLine& l : batch.lines) {
    if (l.unterminated) stats_.unterminated_last_line = true;
    if (l.cut) {
      ++stats_.cut_lines;
      stats_.lines = number;
      OnUnparsed(number, batch.Text(l),
                 absl::StrCat("line longer than ", max_line_bytes, " bytes: cut, not analysed"));
    } else {
      stats_.lines = number;
      if (l.kind != strace::LineKind::kCall || !l.has_pid || l.syscall <= 0 ||
          !l.no_spliced_notice || l.return_at == strace::kNoReturn ||
          !CountedOnly(l.pid, l.syscall, l.returned_negative)) {
        assembler_.Feed(batch.Head(l), batch.Text(l), number);
      }
    }
    ++number;
  }
}

absl::Status Analyzer::RunThreaded(strace::LineReader& reader, const PipelineOptions& options) {
  // Offsets in a batch are 32-bit: a line limit past 1 GiB (never the default) reads on one.
  if (reader.max_line_bytes() > (size_t{1} << 30)) return Run(reader);
  strace::SpscRing<strace::LineBatch> ring(options.ring_slots);
  strace::BatchOptions batch_options = options.batch;
  batch_options.syscall_index = &TableIndexOf;
  std::thread stage1([&ring, &reader, &batch_options] {
    for (;;) {
      strace::LineBatch* batch = ring.BeginWrite();
      if (batch == nullptr) return;  // stage 2 stopped reading
      strace::FillBatch(reader, batch_options, batch);
      const bool last = batch->last;
      ring.EndWrite();
      if (last) return;
    }
  });
  // Stage 2 must not leave the thread running if it throws (bad_alloc): stop and join it.
  struct Joiner {
    std::thread& t;
    strace::SpscRing<strace::LineBatch>& r;
    ~Joiner() {
      if (t.joinable()) {
        r.Close();
        t.join();
      }
    }
  } joiner{stage1, ring};
  for (;;) {
    const strace::LineBatch* batch = ring.BeginRead();
    FeedBatch(*batch, reader.max_line_bytes());
    const bool last = batch->last;
    ring.EndRead();
    if (last) break;
  }
  stage1.join();
  stats_.bytes = reader.bytes_consumed();
  Finish();
  return reader.status();
}

}  // namespace fsmove::analysis
