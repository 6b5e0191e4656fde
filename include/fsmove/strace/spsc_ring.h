// A bounded ring of reusable slots handed from one producer thread to one consumer thread:
// the two stages of the threaded analysis, and the zstd decoder and the line splitter.
// Slots are allocated once and recycled, so memory stays bounded by the ring's size.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fsmove::strace {

template <typename Slot>
class SpscRing {
 public:
  explicit SpscRing(size_t slots) : slots_(slots < 2 ? 2 : slots) {}
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  size_t size() const { return slots_.size(); }

  // Producer: the next free slot, waiting while every slot is full. Null once the consumer
  // has called Close() (it wants no more).
  Slot* BeginWrite() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    for (;;) {
      uint64_t tail = tail_.load(std::memory_order_acquire);
      if (closed_.load(std::memory_order_acquire)) return nullptr;
      if (head - tail < slots_.size()) return &slots_[head % slots_.size()].value;
      tail_.wait(tail, std::memory_order_acquire);
    }
  }
  // Producer: the next free slot, or null when every slot is full (or the ring is closed).
  Slot* TryBeginWrite() {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (closed_.load(std::memory_order_acquire)) return nullptr;
    if (head - tail_.load(std::memory_order_acquire) < slots_.size()) {
      return &slots_[head % slots_.size()].value;
    }
    return nullptr;
  }
  // Producer: hands the slot returned by BeginWrite() to the consumer.
  void EndWrite() {
    head_.fetch_add(1, std::memory_order_release);
    head_.notify_one();
  }

  // Consumer: the oldest full slot, waiting while there is none.
  Slot* BeginRead() {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    for (;;) {
      uint64_t head = head_.load(std::memory_order_acquire);
      if (head != tail) return &slots_[tail % slots_.size()].value;
      head_.wait(head, std::memory_order_acquire);
    }
  }
  // Consumer: gives the slot returned by BeginRead() back to the producer.
  void EndRead() {
    tail_.fetch_add(1, std::memory_order_release);
    tail_.notify_one();
  }

  // The slot of the seq-th write (0-based). Only what the slot's own synchronisation allows may
  // be done with it: the slots from consumed() to published() belong to the consumer, save for
  // what the two threads agree on atomically (the pipeline's batch states).
  Slot& At(uint64_t seq) { return slots_[seq % slots_.size()].value; }
  uint64_t published() const { return head_.load(std::memory_order_acquire); }
  uint64_t consumed() const { return tail_.load(std::memory_order_acquire); }
  // Consumer: stops the producer at its next BeginWrite() (the consumer gave up early).
  void Close() {
    closed_.store(true, std::memory_order_release);
    tail_.fetch_add(1, std::memory_order_release);  // wakes a waiting producer: it sees closed_
    tail_.notify_one();
  }

 private:
  // Each slot on cache lines of its own: the producer writes one slot (a vector's end, line
  // after line) while the consumer reads the one before it, and two slots sharing a line
  // would bounce it between the cores on every line (false sharing).
  struct alignas(64) Padded {
    Slot value;
  };
  std::vector<Padded> slots_;
  // Slots written (head_) and read (tail_) so far; each on its own cache line.
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) std::atomic<bool> closed_{false};
};

}  // namespace fsmove::strace
