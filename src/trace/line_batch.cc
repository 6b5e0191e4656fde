// Stage 1 of the threaded analysis: copies lines into a reusable batch with their heads
// parsed; see line_batch.h.
#include "fsmove/trace/line_batch.h"

#include <algorithm>
#include <cstring>

namespace fsmove::trace {

LineHead LineBatch::Head(const BatchedLine& l) const {
  LineHead head;
  head.kind = l.kind;
  head.has_pid = l.has_pid;
  head.pid = l.pid;
  head.other_pid = l.other_pid;
  head.garbage_reason = l.garbage_reason;
  const char* line = bytes.data() + l.start;
  head.name = std::string_view(line + l.name_at, l.name_size);
  head.rest = std::string_view(line + l.rest_at, l.rest_size);
  if (l.kind == LineKind::kCall) {
    head.return_at = l.return_at == kNoReturn ? std::string_view::npos : l.return_at;
    head.no_spliced_notice = l.no_spliced_notice;
    head.returned_negative = l.returned_negative;
  }
  head.syscall = l.syscall;
  return head;
}

namespace {

uint32_t OffsetIn(std::string_view line, std::string_view part) {
  return part.empty() ? 0 : static_cast<uint32_t>(part.data() - line.data());
}

void Append(LineBatch* batch, std::string_view text, BatchedLine* l) {
  l->start = static_cast<uint32_t>(batch->bytes.size());
  l->size = static_cast<uint32_t>(text.size());
  batch->bytes.insert(batch->bytes.end(), text.begin(), text.end());
}

}  // namespace

void FillBatch(LineReader& reader, const BatchOptions& options, LineBatch* batch) {
  // A batch that held a very long line gives the memory back before the next fill.
  if (batch->bytes.capacity() > 4 * options.target_bytes + kCutLineKeptBytes) {
    std::vector<char>().swap(batch->bytes);
  }
  batch->bytes.clear();
  batch->lines.clear();
  batch->bytes.reserve(options.target_bytes + (options.target_bytes >> 2));
  batch->lines.reserve(options.max_lines);
  batch->first_line_number = reader.line_number() + 1;
  batch->last = false;
  std::string_view line;
  while (batch->lines.empty() ||
         (batch->bytes.size() < options.target_bytes && batch->lines.size() < options.max_lines)) {
    if (!reader.Next(&line)) {
      batch->last = true;
      return;
    }
    BatchedLine& l = batch->lines.emplace_back();
    l.unterminated = reader.last_line_unterminated();
    if (reader.last_line_cut()) {
      // Stage 2 only reports such a line, with its start: the rest is not copied.
      l.cut = true;
      Append(batch, line.substr(0, kCutLineKeptBytes), &l);
      continue;
    }
    const LineHead head = ParseLineHead(line);
    l.kind = head.kind;
    l.has_pid = head.has_pid;
    l.pid = head.pid;
    l.other_pid = head.other_pid;
    l.garbage_reason = head.garbage_reason;
    l.name_at = OffsetIn(line, head.name);
    l.name_size = static_cast<uint32_t>(head.name.size());
    l.rest_at = OffsetIn(line, head.rest);
    l.rest_size = static_cast<uint32_t>(head.rest.size());
    l.return_at = kNoReturn;
    l.syscall = -1;
    l.returned_negative = -1;
    l.no_spliced_notice = false;
    if (head.kind == LineKind::kCall) {
      const size_t at = ReturnValueStart(head.rest);
      if (at != std::string_view::npos) {
        l.return_at = static_cast<uint32_t>(at);
        l.returned_negative = at < head.rest.size() && head.rest[at] == '-' ? 1 : 0;
      }
      // The assembler looks for a spliced "Process N attached" only in lines ending in 'd'.
      l.no_spliced_notice = head.rest.empty() || head.rest.back() != 'd';
    }
    if ((head.kind == LineKind::kCall || head.kind == LineKind::kResumed) &&
        options.syscall_index != nullptr) {
      l.syscall = options.syscall_index(head.name);
    }
    Append(batch, line, &l);
  }
}

}  // namespace fsmove::trace
