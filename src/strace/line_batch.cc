// Stage 1 of the threaded analysis: takes lines where the reader read them, with their heads
// parsed, into a reusable batch; see line_batch.h.
#include "fsmove/strace/line_batch.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace fsmove::strace {

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
  if (l.split != kNotSplit) head.split = splits.data() + l.split;
  return head;
}

namespace {

uint32_t OffsetIn(std::string_view line, std::string_view part) {
  return part.empty() ? 0 : static_cast<uint32_t>(part.data() - line.data());
}

void ParseHeadInto(std::string_view line, NameIndex* name_index, BatchedLine* l) {
  const LineHead head = ParseLineHead(line, name_index);
  l->kind = head.kind;
  l->has_pid = head.has_pid;
  l->pid = head.pid;
  l->other_pid = head.other_pid;
  l->garbage_reason = head.garbage_reason;
  l->name_at = OffsetIn(line, head.name);
  l->name_size = static_cast<uint32_t>(head.name.size());
  l->rest_at = OffsetIn(line, head.rest);
  l->rest_size = static_cast<uint32_t>(head.rest.size());
  if (head.kind == LineKind::kCall) {
    const size_t at = ReturnValueStart(head.rest);
    if (at != std::string_view::npos) {
      l->return_at = static_cast<uint32_t>(at);
      l->returned_negative = at < head.rest.size() && head.rest[at] == '-' ? 1 : 0;
    }
    // The assembler looks for a spliced "Process N attached" only in lines ending in 'd'.
    l->no_spliced_notice = head.rest.empty() || head.rest.back() != 'd';
  }
  l->syscall = head.syscall;
}

// The rare batch whose lines sit in a buffer grown for a very long line: its lines are copied
// out (a cut line's first kCutLineKeptBytes only), so that the ring's slots never each hold
// a buffer of the line limit's size.
void CopyLines(const char* base, size_t buffer_size, LineBatch* batch) {
  size_t total = 0;
  for (BatchedLine& l : batch->lines) {
    if (l.cut) l.size = static_cast<uint32_t>(std::min<size_t>(l.size, kCutLineKeptBytes));
    total += l.size;
  }
  if (batch->bytes.size() > buffer_size) std::vector<char>().swap(batch->bytes);
  if (batch->bytes.size() < total) batch->bytes.resize(total);
  size_t at = 0;
  for (BatchedLine& l : batch->lines) {
    memcpy(batch->bytes.data() + at, base + l.start, l.size);
    l.start = static_cast<uint32_t>(at);
    at += l.size;
  }
}

// The NameIndex a fill or split looks names up with: the caller's, one of its own over
// options.syscall_index, or none.
NameIndex* NamesFor(const BatchOptions& options, NameIndex* given, std::optional<NameIndex>* own) {
  if (options.syscall_index == nullptr) return nullptr;
  if (given != nullptr) return given;
  return &own->emplace(options.syscall_index);
}

// A whole call (the assembler hands its text to the caller unchanged: a return, no spliced
// notice) whose arguments the caller always reads: split into the batch's splits.
void SplitArgsOf(const char* line, const BatchOptions& options, ArgList* args, LineBatch* batch,
                 BatchedLine* l) {
  if (l->kind != LineKind::kCall || l->return_at == kNoReturn || !l->no_spliced_notice ||
      !options.args_read(l->syscall)) {
    return;
  }
  const std::string_view rest(line + l->rest_at, l->rest_size);
  l->split = static_cast<uint32_t>(batch->splits.size());
  args->SaveTo(rest, args->SplitUntilClose(rest), &batch->splits);
}

}  // namespace

void FillBatch(LineReader& reader, const BatchOptions& options, LineBatch* batch,
               NameIndex* names) {
  batch->lines.clear();
  batch->splits.clear();
  batch->lines.reserve(std::min<size_t>(options.max_lines, 8192));
  batch->first_line_number = reader.line_number() + 1;
  batch->last = false;
  std::string_view line;
  if (!reader.Next(&line)) {  // the only call that may read input (and move the buffer)
    batch->last = true;
    return;
  }
  // The lines stay where the reader read them: the reader's buffer becomes the batch's.
  const char* base = reader.buffer_data();
  std::optional<NameIndex> own_names;
  names = NamesFor(options, names, &own_names);
  size_t bytes = 0;
  do {
    BatchedLine& l = batch->lines.emplace_back();
    l.start = static_cast<uint32_t>(line.data() - base);
    l.size = static_cast<uint32_t>(line.size());
    l.unterminated = reader.last_line_unterminated();
    l.cut = reader.last_line_cut();  // stage 2 only reports such a line, with its start
    if (!l.cut) ParseHeadInto(line, names, &l);
    bytes += line.size() + 1;
  } while (bytes < options.target_bytes && batch->lines.size() < options.max_lines &&
           reader.NextBuffered(&line));
  const size_t size = std::max<size_t>(options.target_bytes, 4096);
  if (reader.buffer_bytes() > 4 * size) {
    CopyLines(base, 4 * size, batch);
  } else {
    reader.ExchangeBuffer(&batch->bytes, size);
  }
}

void TakeChunkOrFill(LineReader& reader, const BatchOptions& options, LineBatch* batch,
                     NameIndex* names) {
  const size_t size = std::max<size_t>(options.target_bytes, 4096);
  // A reader's buffer over 4x the batch size (grown for a long line, or made so) is not handed
  // over: a run of at most that many bytes is copied out of it, so no slot keeps a large one.
  const bool copy = reader.buffer_bytes() > 4 * size;
  std::string_view chunk;
  if (reader.NextChunk(&chunk, copy ? 4 * size : SIZE_MAX)) {
    batch->lines.clear();
    batch->last = false;
    if (copy) {
      if (batch->bytes.size() > 4 * size) std::vector<char>().swap(batch->bytes);
      if (batch->bytes.size() < chunk.size()) batch->bytes.resize(std::max(size, chunk.size()));
      memcpy(batch->bytes.data(), chunk.data(), chunk.size());
      batch->chunk_begin = 0;
    } else {
      batch->chunk_begin = static_cast<uint32_t>(chunk.data() - reader.buffer_data());
      reader.ExchangeBuffer(&batch->bytes, size);
    }
    batch->chunk_end = static_cast<uint32_t>(batch->chunk_begin + chunk.size());
    batch->state.store(BatchState::kRaw, std::memory_order_relaxed);
    return;
  }
  FillBatch(reader, options, batch, names);
  batch->state.store(BatchState::kSplit, std::memory_order_relaxed);
}

void SplitChunk(const BatchOptions& options, size_t max_line_bytes, LineBatch* batch,
                NameIndex* names) {
  batch->lines.clear();
  batch->splits.clear();
  const char* const base = batch->bytes.data();
  const char* p = base + batch->chunk_begin;
  const char* const end = base + batch->chunk_end;
  batch->lines.reserve(static_cast<size_t>(end - p) / 64 + 1);
  std::optional<NameIndex> own_names;
  names = NamesFor(options, names, &own_names);
  ArgList args;
  while (p < end) {
    const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (nl == nullptr) nl = end;  // never: a chunk ends with a newline
    BatchedLine& l = batch->lines.emplace_back();
    l.start = static_cast<uint32_t>(p - base);
    size_t length = static_cast<size_t>(nl - p);
    if (length > max_line_bytes) {
      length = max_line_bytes;
      l.cut = true;
    }
    l.size = static_cast<uint32_t>(length);
    if (!l.cut) {
      ParseHeadInto(std::string_view(p, length), names, &l);
      if (options.args_read != nullptr) SplitArgsOf(p, options, &args, batch, &l);
    }
    p = nl + 1;
  }
}

}  // namespace fsmove::strace
