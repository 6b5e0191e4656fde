// Analyzer::RunThreaded: the reading of the trace on a thread of its own, the calls (assembly,
// lowering, interpreting: stage 2) on the caller's, joined by a bounded ring of batches. The
// work between them, splitting a read into lines and parsing their heads (stage 1), is done by
// whichever thread is free: the reader splits the oldest read it has not split yet, and stage 2,
// when the batch it needs next is still being split, splits a later one meanwhile. A fixed split
// of the work left both threads waiting on each other: how much of stage 2 a line costs swings
// from one part of a trace to the next (a block that writes, Ruby's start-up that only looks
// up), and a ring deep enough to smooth that out no longer fits in the cache.
#include <algorithm>
#include <thread>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/strace/spsc_ring.h"

namespace fsmove::analysis {

namespace {

using strace::BatchState;
using strace::LineBatch;
using Ring = strace::SpscRing<LineBatch>;

// Reads the reader keeps ahead of its splitting: enough that stage 2 finds a read to split when
// the one it needs is being split, few enough that the bytes in flight stay in the cache.
constexpr uint64_t kRawAhead = 2;

// Takes a raw batch for this thread to split; false when it is not raw (split, or taken).
bool Claim(LineBatch& batch) {
  BatchState raw = BatchState::kRaw;
  return batch.state.compare_exchange_strong(raw, BatchState::kSplitting,
                                             std::memory_order_acquire);
}

void SplitClaimed(const strace::BatchOptions& options, size_t max_line_bytes,
                  strace::NameIndex* names, LineBatch& batch) {
  strace::SplitChunk(options, max_line_bytes, &batch, names);
  batch.state.store(BatchState::kSplit, std::memory_order_release);
  batch.state.notify_one();  // stage 2 may be waiting for this very batch
}

// Splits the first raw batch among the writes [from, to); false when there is none.
bool SplitFirstRaw(Ring& ring, uint64_t from, uint64_t to, const strace::BatchOptions& options,
                   size_t max_line_bytes, strace::NameIndex* names) {
  for (uint64_t seq = from; seq < to; ++seq) {
    if (Claim(ring.At(seq))) {
      SplitClaimed(options, max_line_bytes, names, ring.At(seq));
      return true;
    }
  }
  return false;
}

// The reader's thread: reads batches into the ring and splits the oldest raw ones.
void ReadAndSplit(Ring& ring, strace::LineReader& reader, const strace::BatchOptions& options) {
  strace::NameIndex names(options.syscall_index);  // this thread's, for every batch
  uint64_t written = 0;
  bool reading = true;
  for (;;) {
    // Writes before consumed() were split (stage 2 only takes split batches).
    const uint64_t from = ring.consumed();
    uint64_t raw = 0;
    for (uint64_t seq = from; seq < written; ++seq) {
      if (ring.At(seq).state.load(std::memory_order_acquire) == BatchState::kRaw) ++raw;
    }
    if (reading) {
      LineBatch* batch = raw < kRawAhead ? ring.TryBeginWrite() : nullptr;
      if (batch == nullptr && raw == 0) {
        batch = ring.BeginWrite();     // nothing to split: wait for a free slot
        if (batch == nullptr) return;  // stage 2 stopped reading
      }
      if (batch != nullptr) {
        strace::TakeChunkOrFill(reader, options, batch, &names);
        reading = !batch->last;
        ring.EndWrite();
        ++written;
        continue;
      }
    } else if (raw == 0) {
      return;
    }
    SplitFirstRaw(ring, from, written, options, reader.max_line_bytes(), &names);
  }
}

}  // namespace

void Analyzer::FeedBatch(const strace::LineBatch& batch, size_t max_line_bytes) {
  uint64_t number = batch.first_line_number;
  for (const strace::BatchedLine& l : batch.lines) {
    if (l.unterminated) stats_.unterminated_last_line = true;
    if (l.cut) {
      FeedCutLine(batch.Text(l), number, max_line_bytes);
    } else {
      stats_.lines = number;
      if (!MayBeCountedOnly(l.kind, l.has_pid, l.syscall, l.no_spliced_notice,
                            l.return_at != strace::kNoReturn) ||
          !CountedOnly(l.pid, l.syscall, l.returned_negative)) {
        ForgetOutsidePid();
        assembler_.Feed(batch.Head(l), batch.Text(l), number);
      }
    }
    ++number;
  }
}

absl::Status Analyzer::RunThreaded(strace::LineReader& reader, const PipelineOptions& options) {
  // Offsets in a batch are 32-bit: a line limit past 1 GiB (never the default) reads on one.
  if (reader.max_line_bytes() > (size_t{1} << 30)) return Run(reader);
  Ring ring(options.ring_slots);
  strace::BatchOptions batch_options = options.batch;
  batch_options.syscall_index = &TableIndexOf;
  batch_options.args_read = &ArgsAlwaysRead;
  const size_t max_line_bytes = reader.max_line_bytes();
  std::thread reading(
      [&ring, &reader, &batch_options] { ReadAndSplit(ring, reader, batch_options); });
  // Stage 2 must not leave the thread running if it throws (bad_alloc): stop and join it.
  struct Joiner {
    std::thread& t;
    Ring& r;
    ~Joiner() {
      if (t.joinable()) {
        r.Close();
        t.join();
      }
    }
  } joiner{reading, ring};
  strace::NameIndex names(&TableIndexOf);  // this thread's, for the batches it splits
  uint64_t lines = 0;
  for (uint64_t seq = 0;; ++seq) {
    LineBatch* batch = ring.BeginRead();
    for (;;) {
      const BatchState state = batch->state.load(std::memory_order_acquire);
      if (state == BatchState::kSplit) break;
      if (state == BatchState::kRaw) {
        if (Claim(*batch)) {
          SplitClaimed(batch_options, max_line_bytes, &names, *batch);
          break;
        }
        continue;  // the reader took it just now
      }
      // The reader is splitting it: split a later read meanwhile, or wait for it.
      if (!SplitFirstRaw(ring, seq + 1, ring.published(), batch_options, max_line_bytes, &names)) {
        batch->state.wait(BatchState::kSplitting, std::memory_order_acquire);
      }
    }
    batch->first_line_number = lines + 1;
    lines += batch->lines.size();
    FeedBatch(*batch, max_line_bytes);
    const bool last = batch->last;
    ring.EndRead();
    if (last) break;
  }
  reading.join();
  stats_.bytes = reader.bytes_consumed();
  Finish();
  return reader.status();
}

}  // namespace fsmove::analysis
