// Recognises Puppet's evaltrace begin/end messages; see puppet_markers.h.
// Titles are printed raw by Puppet and C-escaped by strace, so the text is decoded first.
#include "fsmove/strace/puppet_markers.h"

#include <cstring>
#include <vector>

#include "byte_scan.h"
#include "fsmove/strace/args.h"

namespace fsmove::strace {
namespace {

constexpr std::string_view kInfo = "Info: ";
constexpr std::string_view kStarting = ": Starting to evaluate the resource";
constexpr std::string_view kEvaluated = ": Evaluated in ";
constexpr std::string_view kSeconds = " seconds";
constexpr std::string_view kDebug = "Debug: ";
constexpr std::string_view kAdding = ": Adding auto";
constexpr std::string_view kRelationshipWith = " relationship with ";
constexpr std::string_view kError = "Error: ";
constexpr std::string_view kWarning = "Warning: ";
constexpr std::string_view kSkipping = "Skipping because of failed dependencies";
// Enough decoded bytes for several colour sequences and the longest level ("Debug: ").
constexpr size_t kMessageHeadBytes = 48;

using byte_scan::IsDigit;
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsWordChar(char c) {
  return IsUpper(c) || (c >= 'a' && c <= 'z') || IsDigit(c) || c == '_';
}

// Removes the ANSI SGR sequences (ESC [ ... m) at the start: Puppet's colour.
std::string_view SkipLeadingSgr(std::string_view s) {
  while (s.size() >= 2 && s[0] == '\033' && s[1] == '[') {
    size_t m = 2;
    while (m < s.size() && (IsDigit(s[m]) || s[m] == ';')) ++m;
    if (m >= s.size() || s[m] != 'm') break;
    s.remove_prefix(m + 1);
  }
  return s;
}

// Removes ANSI SGR sequences (ESC [ ... m) at the ends, and trailing newlines.
std::string_view StripDecorations(std::string_view s) {
  for (;;) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    // A colour reset that strace's -s limit cut off ("...(5 of 15)\33[0"): drop the rest.
    if (size_t esc = s.rfind('\033'); esc != std::string_view::npos && esc + 4 >= s.size()) {
      bool partial = true;
      for (size_t i = esc + 1; i < s.size(); ++i) {
        if (!(i == esc + 1 ? s[i] == '[' : IsDigit(s[i]) || s[i] == ';')) partial = false;
      }
      if (partial) {
        s = s.substr(0, esc);
        continue;
      }
    }
    if (s.size() >= 3 && s.back() == 'm') {
      size_t esc = s.rfind('\033');
      if (esc != std::string_view::npos && esc + 1 < s.size() && s[esc + 1] == '[') {
        bool sgr = true;
        for (size_t i = esc + 2; i + 1 < s.size(); ++i) {
          if (!IsDigit(s[i]) && s[i] != ';') sgr = false;
        }
        if (sgr) {
          s = s.substr(0, esc);
          continue;
        }
      }
    }
    break;
  }
  return SkipLeadingSgr(s);
}

// Length of a Puppet type name at s[i] (Capitalised segments joined by ::), or 0.
size_t TypeNameLength(std::string_view s, size_t i) {
  size_t j = i;
  for (;;) {
    if (j >= s.size() || !(IsUpper(s[j]) || (j > i && s[j] >= 'a' && s[j] <= 'z'))) return 0;
    ++j;
    while (j < s.size() && IsWordChar(s[j])) ++j;
    if (j + 1 < s.size() && s[j] == ':' && s[j + 1] == ':') {
      j += 2;
      continue;
    }
    return j - i;
  }
}

bool BalancedBrackets(std::string_view title) {
  int depth = 0;
  for (char c : title) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return false;
  }
  return depth == 0;
}

}  // namespace

bool MayHoldMarker(std::string_view raw_args) {
  // Puppet logs to its stdout (fd 1; 2 when redirected there): a write to any other fd
  // (dpkg unpacking a package, a daemon's log) is not read at all, however long.
  if (raw_args.size() < 2 || (raw_args[0] != '1' && raw_args[0] != '2') ||
      (raw_args[1] != ',' && raw_args[1] != '<')) {
    return false;
  }
  // Puppet writes each message whole, its level first after an optional colour: only the
  // first bytes of the first string written are decoded (whatever the escaping: default,
  // -x or -xx), so that the long output of the commands Puppet runs costs next to nothing.
  size_t quote = raw_args.find('"');
  if (quote == std::string_view::npos) return false;
  char head[kMessageHeadBytes];
  std::string_view text = SkipLeadingSgr(
      std::string_view(head, DecodeStringPrefix(raw_args.substr(quote), head, sizeof head)));
  if (text.starts_with(kInfo) || text.starts_with(kError)) return true;
  // Warnings: only the skipped resources are read.
  if (text.starts_with(kWarning)) {
    return memmem(raw_args.data(), raw_args.size(), kSkipping.data(), kSkipping.size()) != nullptr;
  }
  // Debug lines are many under --debug; only the auto-relationship ones are read.
  return text.starts_with(kDebug) &&
         memmem(raw_args.data(), raw_args.size(), kRelationshipWith.data(),
                kRelationshipWith.size()) != nullptr;
}

bool WrittenBytes(WrittenForm form, std::string_view args, int* fd, std::string* bytes,
                  bool* truncated) {
  ArgList list(args);
  int64_t fdv = 0;
  if (list.size() < 2 || !ParseInt(list[0], &fdv)) return false;
  *fd = static_cast<int>(fdv);
  bytes->clear();
  *truncated = false;
  if (form == WrittenForm::kBuffer) {
    bool cut = false;
    if (!DecodeString(list[1], bytes, &cut)) return false;
    *truncated = cut;
    return true;
  }
  std::string piece;
  for (std::string_view iov : ArrayItems(list[1])) {
    if (iov == "...") {  // strace printed only the first iovecs
      *truncated = true;
      continue;
    }
    std::string_view base = StructField(iov, "iov_base");
    bool cut = false;
    if (!DecodeString(base, &piece, &cut)) return false;
    bytes->append(piece);
    *truncated |= cut;
  }
  return true;
}

namespace {
// A decimal count; leaves *out at 0 unless the text is all digits and fits.
void ParseCount(std::string_view text, uint64_t* out) {
  uint64_t v = 0;
  if (text.empty() || text.size() > 18) return;
  for (char c : text) {
    if (c < '0' || c > '9') return;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
}
}  // namespace

MarkerKind ParseMarker(std::string_view text, Marker* out) {
  std::string_view s = StripDecorations(text);
  if (!s.starts_with(kInfo)) return MarkerKind::kNone;
  s.remove_prefix(kInfo.size());
  MarkerKind kind = MarkerKind::kNone;
  size_t cut = std::string_view::npos;
  // Begin: "<source>: Starting to evaluate the resource" plus, since Puppet 5, " (N of M)".
  std::string_view begin_view = s;
  uint64_t index = 0, total = 0;
  if (begin_view.ends_with(")")) {
    size_t open = begin_view.rfind(" (");
    size_t of = open == std::string_view::npos ? open : begin_view.find(" of ", open);
    if (of != std::string_view::npos) {
      ParseCount(begin_view.substr(open + 2, of - open - 2), &index);
      ParseCount(begin_view.substr(of + 4, begin_view.size() - of - 5), &total);
      begin_view = begin_view.substr(0, open);
    }
  }
  if (begin_view.ends_with(kStarting)) {
    kind = MarkerKind::kBegin;
    cut = begin_view.size() - kStarting.size();
  } else if (s.ends_with(kSeconds)) {
    size_t at = s.rfind(kEvaluated);
    // "Evaluated in seconds": the two share their space, and there is no number between.
    if (at != std::string_view::npos && at + kEvaluated.size() + kSeconds.size() <= s.size()) {
      std::string_view num = s.substr(at + kEvaluated.size());
      num.remove_suffix(kSeconds.size());
      bool numeric = !num.empty();
      for (char c : num) numeric &= IsDigit(c) || c == '.' || c == 'e' || c == '-';
      if (numeric) {
        kind = MarkerKind::kEnd;
        cut = at;
      }
    }
  }
  if (kind == MarkerKind::kNone || cut == 0) return MarkerKind::kNone;
  out->kind = kind;
  out->index = kind == MarkerKind::kBegin ? index : 0;
  out->total = kind == MarkerKind::kBegin ? total : 0;
  out->source.assign(s.substr(0, cut));
  out->ref = RefFromSource(out->source);
  return kind;
}

bool ParseAutoRelation(std::string_view text, AutoRelationMessage* out) {
  std::string_view s = StripDecorations(text);
  if (!s.starts_with(kDebug)) return false;
  s.remove_prefix(kDebug.size());
  size_t with = s.rfind(kRelationshipWith);
  if (with == std::string_view::npos) return false;
  size_t adding = s.rfind(kAdding, with);
  if (adding == std::string_view::npos || adding == 0) return false;
  std::string_view kind = s.substr(adding + kAdding.size(), with - adding - kAdding.size());
  std::string_view other = s.substr(with + kRelationshipWith.size());
  if (other.empty() || other.back() != ']' || RefFromSource(other) != other) return false;
  if (kind == "require") {
    *out = {"", "", true, false};
  } else if (kind == "subscribe") {
    *out = {"", "", true, true};
  } else if (kind == "before") {
    *out = {"", "", false, false};
  } else if (kind == "notify") {
    *out = {"", "", false, true};
  } else {
    return false;
  }
  out->ref = RefFromSource(s.substr(0, adding));
  out->other.assign(other);
  return out->ref.ends_with("]");
}

namespace {

bool IsPropertyName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || IsDigit(c) || c == '_')) return false;
  }
  return true;
}

}  // namespace

bool SplitResourceMessage(std::string_view s, std::string* ref, std::string* message,
                          std::string* property) {
  if (s.empty() || (s.front() != '/' && !IsUpper(s.front()))) return false;
  for (size_t pos = s.find(": "); pos != std::string_view::npos; pos = s.find(": ", pos + 1)) {
    std::string_view path = s.substr(0, pos);
    std::string_view prop;
    if (path.empty()) continue;
    if (path.back() != ']') {
      size_t slash = path.rfind('/');
      if (slash == std::string_view::npos || !IsPropertyName(path.substr(slash + 1))) continue;
      prop = path.substr(slash + 1);
      path = path.substr(0, slash);
      if (path.empty() || path.back() != ']') continue;
    }
    std::string r = RefFromSource(path);
    // A reference, not a sentence ending in one ("Could not start Service[x]").
    const size_t type = TypeNameLength(r, 0);
    if (type == 0 || type >= r.size() || r[type] != '[' || r.back() != ']') continue;
    *ref = std::move(r);
    *message = std::string(s.substr(pos + 2));
    if (property != nullptr) *property = std::string(prop);
    return true;
  }
  return false;
}

ProblemKind ParseProblem(std::string_view text, PuppetProblem* out) {
  std::string_view s = StripDecorations(text);
  // A message of several lines (an exec's output): its first line names the resource.
  if (size_t nl = s.find('\n'); nl != std::string_view::npos) {
    s = s.substr(0, nl);
    while (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  }
  const bool error = s.starts_with(kError);
  if (!error && !s.starts_with(kWarning)) return ProblemKind::kNone;
  s.remove_prefix(error ? kError.size() : kWarning.size());
  if (error &&
      ((s.starts_with("Found ") && s.find(" dependency cycle") != std::string_view::npos) ||
       s.starts_with("Failed to apply catalog"))) {
    out->kind = ProblemKind::kApplyFailed;
    out->ref.clear();
    out->message.assign(s);
    return out->kind;
  }
  std::string ref, message;
  if (!SplitResourceMessage(s, &ref, &message)) return ProblemKind::kNone;
  if (!error && message != kSkipping) return ProblemKind::kNone;
  out->kind = error ? ProblemKind::kResourceFailed : ProblemKind::kResourceSkipped;
  out->ref = std::move(ref);
  out->message = std::move(message);
  return out->kind;
}

std::string RefFromSource(std::string_view source) {
  if (source.empty() || source.back() != ']') return std::string(source);
  size_t fallback = std::string_view::npos;
  for (size_t i = source.size(); i-- > 0;) {
    if (i != 0 && source[i - 1] != '/') continue;
    size_t len = TypeNameLength(source, i);
    if (len == 0 || i + len >= source.size() || source[i + len] != '[') continue;
    std::string_view title = source.substr(i + len + 1, source.size() - (i + len + 1) - 1);
    if (BalancedBrackets(title)) return std::string(source.substr(i));
    if (fallback == std::string_view::npos) fallback = i;
  }
  if (fallback != std::string_view::npos) return std::string(source.substr(fallback));
  return std::string(source);
}

}  // namespace fsmove::strace
