// Puppet's version ranges; see version_range.h.
#include "fsmove/exec/version_range.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fmt/format.h"

namespace fsmove::exec {

namespace {

// A version with some of its numbers left out or written x, X or *: "1", "1.2", "1.x", "*".
struct Partial {
  int given = 0;   // how many numbers are given, from the left (0 to 3)
  SemVer version;  // the given ones, zeros after
};

// `text` cut at each `sep` (std::string_view: Debian's Abseil has its own string_view).
std::vector<std::string_view> Split(std::string_view text, std::string_view sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + sep.size();
  }
}

std::string_view Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::optional<uint64_t> Number(std::string_view s) {
  uint64_t n = 0;
  if (s.empty() || s.size() > 18) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

bool Wildcard(std::string_view s) { return s == "x" || s == "X" || s == "*"; }

std::optional<Partial> ParsePartial(std::string_view text) {
  Partial p;
  std::string_view numbers = text;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    numbers = text.substr(0, dash);
    p.version.pre = std::string(text.substr(dash + 1));
    if (p.version.pre.empty()) return std::nullopt;
  }
  if (size_t plus = numbers.find('+'); plus != std::string_view::npos) {
    numbers = numbers.substr(0, plus);  // build metadata: not compared
  }
  std::vector<std::string_view> parts = Split(numbers, ".");
  if (parts.size() > 3) return std::nullopt;
  uint64_t* fields[] = {&p.version.major, &p.version.minor, &p.version.patch};
  bool wild = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (Wildcard(parts[i])) {
      wild = true;
      continue;
    }
    std::optional<uint64_t> n = Number(parts[i]);
    if (!n || wild) return std::nullopt;  // 1.x.3
    *fields[i] = *n;
    p.given = static_cast<int>(i) + 1;
  }
  if (!p.version.pre.empty() && p.given != 3) return std::nullopt;
  return p;
}

// The first version after every version that `p` names (1.2 -> 1.3.0, 1 -> 2.0.0).
SemVer After(const Partial& p) {
  SemVer v;
  if (p.given == 1) v.major = p.version.major + 1;
  if (p.given == 2) {
    v.major = p.version.major;
    v.minor = p.version.minor + 1;
  }
  return v;
}

}  // namespace

std::string SemVer::Text() const {
  std::string s = fmt::format("{}.{}.{}", major, minor, patch);
  if (!pre.empty()) absl::StrAppend(&s, "-", pre);
  return s;
}

absl::StatusOr<SemVer> ParseSemVer(std::string_view text) {
  std::optional<Partial> p = ParsePartial(text);
  if (!p || p->given != 3) {
    return absl::InvalidArgumentError(fmt::format("\"{}\" is not a version (1.2.3)", text));
  }
  return p->version;
}

SemVer DebianUpstreamVersion(std::string_view debian_version) {
  std::string_view v = debian_version;
  if (size_t colon = v.find(':'); colon != std::string_view::npos) v = v.substr(colon + 1);
  if (size_t dash = v.rfind('-'); dash != std::string_view::npos) v = v.substr(0, dash);
  if (size_t tilde = v.find('~'); tilde != std::string_view::npos) v = v.substr(0, tilde);
  SemVer out;
  std::vector<std::string_view> parts = Split(v, ".");
  uint64_t* fields[] = {&out.major, &out.minor, &out.patch};
  for (size_t i = 0; i < parts.size() && i < 3; ++i) {
    // Leading digits only ("0+dfsg1" is 0).
    size_t n = 0;
    while (n < parts[i].size() && parts[i][n] >= '0' && parts[i][n] <= '9') ++n;
    *fields[i] = Number(parts[i].substr(0, n)).value_or(0);
  }
  return out;
}

absl::Status VersionRange::ParseComparison(std::string_view word, Conjunction* out) {
  std::string_view op;
  for (std::string_view o : {">=", "<=", "~>", ">", "<", "=", "~", "^"}) {
    if (word.starts_with(o)) {
      op = o;
      break;
    }
  }
  std::optional<Partial> p = ParsePartial(word.substr(op.size()));
  if (!p) return absl::InvalidArgumentError(fmt::format("\"{}\" is not a version", word));
  const SemVer& v = p->version;
  const bool any = p->given == 0;
  auto add = [out](Op o, SemVer s) { out->push_back(Comparison{o, std::move(s)}); };
  if (op.empty() || op == "=") {
    if (p->given == 3) {
      add(Op::kEq, v);
    } else if (!any) {
      add(Op::kGe, v);
      add(Op::kLt, After(*p));
    }
  } else if (op == ">=") {
    if (!any) add(Op::kGe, v);
  } else if (op == ">") {
    if (any) {
      add(Op::kLt, SemVer{});  // after every version: none
    } else if (p->given == 3) {
      add(Op::kGt, v);
    } else {
      add(Op::kGe, After(*p));
    }
  } else if (op == "<") {
    add(Op::kLt, v);  // < * is < 0.0.0: none
  } else if (op == "<=") {
    if (p->given == 3) {
      add(Op::kLe, v);
    } else if (!any) {
      add(Op::kLt, After(*p));
    }
  } else if (op == "~" || op == "~>") {
    if (!any) {
      add(Op::kGe, v);
      add(Op::kLt, p->given == 1 ? After(*p) : SemVer{v.major, v.minor + 1, 0, {}});
    }
  } else {  // ^
    if (!any) {
      add(Op::kGe, v);
      if (v.major > 0 || p->given == 1) {
        add(Op::kLt, SemVer{v.major + 1, 0, 0, {}});
      } else if (v.minor > 0 || p->given == 2) {
        add(Op::kLt, SemVer{0, v.minor + 1, 0, {}});
      } else {
        add(Op::kLt, SemVer{0, 0, v.patch + 1, {}});
      }
    }
  }
  return absl::OkStatus();
}

absl::Status VersionRange::ParseConjunction(std::string_view text, Conjunction* out) {
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), '\t', ' ');
  std::vector<std::string> words;
  for (std::string_view w : Split(spaced, " ")) {
    w = Trim(w);
    if (w.empty()) continue;
    // An operator written apart from its version (">= 7.0.0") belongs to the next word.
    if (!words.empty() && !words.back().empty() &&
        words.back().find_first_not_of("<>=~^") == std::string::npos) {
      words.back() += std::string(w);
    } else {
      words.emplace_back(w);
    }
  }
  if (words.empty()) return absl::InvalidArgumentError("an empty alternative");
  if (words.size() == 3 && words[1] == "-") {  // 1.2.3 - 2.3.4
    std::optional<Partial> from = ParsePartial(words[0]), to = ParsePartial(words[2]);
    if (!from || !to) return absl::InvalidArgumentError("a hyphen range needs two versions");
    if (from->given > 0) out->push_back(Comparison{Op::kGe, from->version});
    if (to->given == 3) {
      out->push_back(Comparison{Op::kLe, to->version});
    } else if (to->given > 0) {
      out->push_back(Comparison{Op::kLt, After(*to)});
    }
    return absl::OkStatus();
  }
  for (const std::string& w : words) {
    if (absl::Status st = ParseComparison(w, out); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::StatusOr<VersionRange> VersionRange::Parse(std::string_view text) {
  VersionRange r;
  r.text_ = std::string(Trim(text));
  if (r.text_.size() > 1024) return absl::InvalidArgumentError("a version range over 1 KiB");
  if (r.text_.empty()) return absl::InvalidArgumentError("an empty version range");
  for (std::string_view alt : Split(r.text_, "||")) {
    Conjunction c;
    if (absl::Status st = ParseConjunction(alt, &c); !st.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("version range \"{}\": {}", r.text_, std::string(st.message())));
    }
    r.any_of_.push_back(std::move(c));
  }
  return r;
}

bool VersionRange::Contains(const SemVer& v) const {
  for (const Conjunction& c : any_of_) {
    bool all = true;
    for (const Comparison& cmp : c) {
      switch (cmp.op) {
        case Op::kGe:
          all = v >= cmp.version;
          break;
        case Op::kGt:
          all = v > cmp.version;
          break;
        case Op::kLe:
          all = v <= cmp.version;
          break;
        case Op::kLt:
          all = v < cmp.version;
          break;
        case Op::kEq:
          all = v == cmp.version;
          break;
      }
      if (!all) break;
    }
    if (all) return true;
  }
  return false;
}

}  // namespace fsmove::exec
