// Saving the streamed trace; see trace_copy.h.
#include "fsmove/exec/trace_copy.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"

namespace fsmove::exec {
namespace {

class FileCopy : public TraceCopy {
 public:
  FileCopy(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  ~FileCopy() override {
    if (f_) std::fclose(f_);
  }
  absl::Status Save(const char* data, size_t n) override {
    if (std::fwrite(data, 1, n, f_) != n) return Error();
    return absl::OkStatus();
  }
  absl::Status Close() override {
    if (f_ == nullptr) return absl::OkStatus();
    int rc = std::fclose(f_);
    f_ = nullptr;
    return rc == 0 ? absl::OkStatus() : Error();
  }

 protected:
  absl::Status Error() const {
    return absl::DataLossError(fmt::format("writing {}: {}", path_, std::strerror(errno)));
  }
  std::FILE* f_;
  std::string path_;
};

class ZstdCopy : public FileCopy {
 public:
  ZstdCopy(std::FILE* f, std::string path)
      : FileCopy(f, std::move(path)), cctx_(ZSTD_createCCtx()), out_(ZSTD_CStreamOutSize()) {
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 3);
  }
  ~ZstdCopy() override { ZSTD_freeCCtx(cctx_); }
  absl::Status Save(const char* data, size_t n) override {
    ZSTD_inBuffer in{data, n, 0};
    while (in.pos < in.size) {
      if (absl::Status st = Step(&in, ZSTD_e_continue); !st.ok()) return st;
    }
    return absl::OkStatus();
  }
  absl::Status Close() override {
    if (f_ == nullptr) return absl::OkStatus();
    ZSTD_inBuffer in{nullptr, 0, 0};
    for (;;) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      size_t left = ZSTD_compressStream2(cctx_, &out, &in, ZSTD_e_end);
      if (ZSTD_isError(left)) return absl::InternalError(ZSTD_getErrorName(left));
      if (std::fwrite(out_.data(), 1, out.pos, f_) != out.pos) return Error();
      if (left == 0) break;
    }
    return FileCopy::Close();
  }

 private:
  absl::Status Step(ZSTD_inBuffer* in, ZSTD_EndDirective mode) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    size_t r = ZSTD_compressStream2(cctx_, &out, in, mode);
    if (ZSTD_isError(r)) return absl::InternalError(ZSTD_getErrorName(r));
    if (std::fwrite(out_.data(), 1, out.pos, f_) != out.pos) return Error();
    return absl::OkStatus();
  }
  ZSTD_CCtx* cctx_;
  std::vector<char> out_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TraceCopy>> TraceCopy::Create(const std::string& path,
                                                             uint64_t max_bytes) {
  // Never through a final symbolic link (base::CheckWritable refused one before the run; one
  // planted since is refused here too: ELOOP).
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  std::FILE* f = fd < 0 ? nullptr : fdopen(fd, "wb");
  if (f == nullptr) {
    const int e = errno;
    if (fd >= 0) close(fd);
    return base::ErrnoStatus(fmt::format("cannot write {}", path), e);
  }
  std::unique_ptr<TraceCopy> copy;
  if (path.size() > 4 && path.ends_with(".zst")) {
    copy = std::make_unique<ZstdCopy>(f, path);
  } else {
    copy = std::make_unique<FileCopy>(f, path);
  }
  copy->max_bytes_ = max_bytes;
  return copy;
}

absl::Status TraceCopy::Write(const char* data, size_t n) {
  if (cut_) return absl::OkStatus();
  if (n <= max_bytes_ - saved_) {
    saved_ += n;
    return Save(data, n);
  }
  // The last whole line that fits; what follows is not saved (the analysis reads it all).
  cut_ = true;
  if (on_cut_) on_cut_();
  const std::string_view fits(data, static_cast<size_t>(max_bytes_ - saved_));
  const size_t end = fits.rfind('\n');
  if (end == std::string_view::npos) return absl::OkStatus();
  saved_ += end + 1;
  return Save(data, end + 1);
}

}  // namespace fsmove::exec
