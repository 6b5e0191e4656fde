// Tokenizing Puppet source and finding resource declarations in it; see puppet_source.h.
#include "fsmove/fix/puppet_source.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace fsmove::fix {
namespace {

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  return s;
}

std::string_view Trim(std::string_view s) {
  s = TrimLeft(s);
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Words that can stand before `{` without being a resource type.
bool IsKeyword(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "if",   "elsif", "else",        "unless", "case",  "define",  "node",     "and",
      "or",   "in",    "true",        "false",  "undef", "default", "inherits", "function",
      "type", "plan",  "application", "site",   "attr",  "private"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

class Tokenizer {
 public:
  explicit Tokenizer(const std::string& text) : t_(text) {}

  absl::StatusOr<std::vector<Token>> Run() {
    std::vector<size_t> stack;
    while (true) {
      if (absl::Status st = SkipSpace(); !st.ok()) return st;
      if (pos_ >= t_.size()) break;
      Token tok;
      tok.begin = pos_;
      tok.line = line_;
      if (absl::Status st = Next(tok); !st.ok()) return st;
      tok.end = pos_;
      const size_t index = tokens_.size();
      if (tok.kind == TokenKind::kOpen) stack.push_back(index);
      if (tok.kind == TokenKind::kClose) {
        const char want = t_[tok.begin] == '}' ? '{' : t_[tok.begin] == ']' ? '[' : '(';
        if (stack.empty() || t_[tokens_[stack.back()].begin] != want) {
          return absl::InvalidArgumentError(absl::StrCat("line ", tok.line, ": unbalanced '",
                                                         std::string(1, t_[tok.begin]), "'"));
        }
        tok.match = stack.back();
        tokens_[stack.back()].match = index;
        stack.pop_back();
      }
      tokens_.push_back(std::move(tok));
    }
    if (!stack.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", tokens_[stack.back()].line, ": unclosed '",
                       std::string(1, t_[tokens_[stack.back()].begin]), "'"));
    }
    return std::move(tokens_);
  }

  // The `#` comments met by Run, in order.
  std::vector<Comment> TakeComments() { return std::move(comments_); }

 private:
  void Advance() {
    if (t_[pos_] == '\n') ++line_;
    ++pos_;
  }

  // Whitespace, comments, and the bodies of heredocs opened on the line just ended.
  absl::Status SkipSpace() {
    while (pos_ < t_.size()) {
      const char c = t_[pos_];
      if (c == '\n' && !heredoc_tags_.empty()) {
        Advance();
        if (absl::Status st = SkipHeredocBodies(); !st.ok()) return st;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        Advance();
      } else if (c == '#') {
        Comment comment{pos_, pos_, line_};
        while (pos_ < t_.size() && t_[pos_] != '\n') Advance();
        comment.end = pos_;
        comments_.push_back(comment);
      } else if (c == '/' && pos_ + 1 < t_.size() && t_[pos_ + 1] == '*') {
        const int start = line_;
        const size_t end = t_.find("*/", pos_ + 2);
        if (end == std::string::npos) {
          return absl::InvalidArgumentError(absl::StrCat("line ", start, ": unterminated comment"));
        }
        while (pos_ < end + 2) Advance();
      } else {
        break;
      }
    }
    return absl::OkStatus();
  }

  absl::Status SkipHeredocBodies() {
    for (const std::string& tag : heredoc_tags_) {
      const int start = line_;
      while (true) {
        if (pos_ >= t_.size()) {
          return absl::InvalidArgumentError(
              absl::StrCat("line ", start, ": heredoc without its end tag ", tag));
        }
        size_t eol = t_.find('\n', pos_);
        if (eol == std::string::npos) eol = t_.size();
        std::string_view l(t_.data() + pos_, eol - pos_);
        l = Trim(l);
        if (!l.empty() && l.front() == '|') l = TrimLeft(l.substr(1));
        if (!l.empty() && l.front() == '-') l = TrimLeft(l.substr(1));
        while (pos_ < eol) Advance();
        if (pos_ < t_.size()) Advance();
        if (l == tag) break;
      }
    }
    heredoc_tags_.clear();
    return absl::OkStatus();
  }

  absl::Status Next(Token& tok) {
    const char c = t_[pos_];
    const char n = pos_ + 1 < t_.size() ? t_[pos_ + 1] : '\0';
    if (c == '\'') return SingleQuoted(tok);
    if (c == '"') return DoubleQuoted(tok);
    if (c == '@' && n == '(') return Heredoc(tok);
    if (c == '$') {
      Advance();
      if (pos_ + 1 < t_.size() && t_[pos_] == ':' && t_[pos_ + 1] == ':') Advance(), Advance();
      Name();
      tok.kind = TokenKind::kVariable;
      return absl::OkStatus();
    }
    if (IsNameStart(c) ||
        (c == ':' && n == ':' && pos_ + 2 < t_.size() && IsNameStart(t_[pos_ + 2]))) {
      Name();
      tok.kind = TokenKind::kName;
      return absl::OkStatus();
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < t_.size() && (IsNameChar(t_[pos_]) || t_[pos_] == '.')) Advance();
      tok.kind = TokenKind::kNumber;
      return absl::OkStatus();
    }
    if (c == '/' && RegexAllowed()) return Regex(tok);
    Advance();
    switch (c) {
      case '{':
      case '[':
      case '(':
        tok.kind = TokenKind::kOpen;
        return absl::OkStatus();
      case '}':
      case ']':
      case ')':
        tok.kind = TokenKind::kClose;
        return absl::OkStatus();
      case ',':
        tok.kind = TokenKind::kComma;
        return absl::OkStatus();
      case ';':
        tok.kind = TokenKind::kSemicolon;
        return absl::OkStatus();
      case ':':
        tok.kind = TokenKind::kColon;
        return absl::OkStatus();
      default:
        break;
    }
    if ((c == '=' || c == '+') && n == '>') {
      Advance();
      tok.kind = TokenKind::kArrow;
      return absl::OkStatus();
    }
    static constexpr std::string_view kSecond = "=~<>-";
    if (std::string_view("=!<>-~").find(c) != std::string_view::npos &&
        kSecond.find(n) != std::string_view::npos && n != '\0') {
      Advance();
    }
    tok.kind = TokenKind::kOther;
    return absl::OkStatus();
  }

  void Name() {
    while (pos_ < t_.size()) {
      if (IsNameChar(t_[pos_])) {
        Advance();
      } else if (t_[pos_] == ':' && pos_ + 2 < t_.size() && t_[pos_ + 1] == ':' &&
                 IsNameStart(t_[pos_ + 2])) {
        Advance(), Advance();
      } else {
        break;
      }
    }
  }

  bool RegexAllowed() const {
    if (tokens_.empty()) return false;
    const Token& p = tokens_.back();
    std::string_view text(t_.data() + p.begin, pos_ - p.begin);
    text = Trim(text);
    return text == "=~" || text == "!~" || text == "node";
  }

  absl::Status Regex(Token& tok) {
    const int start = line_;
    Advance();
    while (pos_ < t_.size() && t_[pos_] != '/' && t_[pos_] != '\n') {
      if (t_[pos_] == '\\') Advance();
      if (pos_ < t_.size()) Advance();
    }
    if (pos_ >= t_.size() || t_[pos_] != '/') {
      return absl::InvalidArgumentError(absl::StrCat("line ", start, ": unterminated regex"));
    }
    Advance();
    tok.kind = TokenKind::kRegex;
    return absl::OkStatus();
  }

  absl::Status SingleQuoted(Token& tok) {
    const int start = line_;
    Advance();
    tok.kind = TokenKind::kString;
    tok.literal = true;
    while (pos_ < t_.size() && t_[pos_] != '\'') {
      if (t_[pos_] == '\\' && pos_ + 1 < t_.size() &&
          (t_[pos_ + 1] == '\\' || t_[pos_ + 1] == '\'')) {
        Advance();
      }
      tok.value.push_back(t_[pos_]);
      Advance();
    }
    if (pos_ >= t_.size()) {
      return absl::InvalidArgumentError(absl::StrCat("line ", start, ": unterminated string"));
    }
    Advance();
    return absl::OkStatus();
  }

  absl::Status DoubleQuoted(Token& tok) {
    const int start = line_;
    Advance();
    tok.kind = TokenKind::kString;
    tok.literal = true;
    while (pos_ < t_.size() && t_[pos_] != '"') {
      const char c = t_[pos_];
      if (c == '\\' && pos_ + 1 < t_.size()) {
        Advance();
        const char e = t_[pos_];
        tok.value.push_back(e == 'n'   ? '\n'
                            : e == 't' ? '\t'
                            : e == 'r' ? '\r'
                            : e == 's' ? ' '
                                       : e);
        if (std::string_view("ntrs\\\"$'\n").find(e) == std::string_view::npos) {
          tok.value.insert(tok.value.end() - 1, '\\');
        }
        Advance();
      } else if (c == '$' && pos_ + 1 < t_.size() && t_[pos_ + 1] == '{') {
        tok.literal = false;
        Advance();
        if (absl::Status st = Interpolation(); !st.ok()) return st;
      } else if (c == '$' && pos_ + 1 < t_.size() &&
                 (IsNameChar(t_[pos_ + 1]) || t_[pos_ + 1] == ':')) {
        tok.literal = false;
        Advance();
      } else {
        tok.value.push_back(c);
        Advance();
      }
    }
    if (pos_ >= t_.size()) {
      return absl::InvalidArgumentError(absl::StrCat("line ", start, ": unterminated string"));
    }
    Advance();
    return absl::OkStatus();
  }

  // From the `{` of "${": to past its matching `}`, through nested strings and brackets.
  absl::Status Interpolation() {
    const int start = line_;
    int depth = 0;
    while (pos_ < t_.size()) {
      const char c = t_[pos_];
      if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (--depth == 0) {
          Advance();
          return absl::OkStatus();
        }
      } else if (c == '\'' || c == '"') {
        Token inner;
        absl::Status st = c == '\'' ? SingleQuoted(inner) : DoubleQuoted(inner);
        if (!st.ok()) return st;
        continue;
      }
      Advance();
    }
    return absl::InvalidArgumentError(absl::StrCat("line ", start, ": unterminated ${...}"));
  }

  absl::Status Heredoc(Token& tok) {
    const int start = line_;
    const size_t close = t_.find(')', pos_);
    const size_t eol = t_.find('\n', pos_);
    if (close == std::string::npos || (eol != std::string::npos && close > eol)) {
      return absl::InvalidArgumentError(absl::StrCat("line ", start, ": bad heredoc"));
    }
    std::string_view spec(t_.data() + pos_ + 2, close - pos_ - 2);
    spec = spec.substr(0, spec.find_first_of(":/"));
    spec = Trim(spec);
    if (spec.size() >= 2 && spec.front() == '"' && spec.back() == '"') {
      spec = spec.substr(1, spec.size() - 2);
    }
    heredoc_tags_.emplace_back(spec);
    while (pos_ <= close) Advance();
    tok.kind = TokenKind::kString;
    tok.literal = false;
    return absl::OkStatus();
  }

  const std::string& t_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<Token> tokens_;
  std::vector<Comment> comments_;
  std::vector<std::string> heredoc_tags_;
};

}  // namespace

bool SameType(std::string_view declared, std::string_view catalog_type) {
  if (declared.starts_with("::")) declared.remove_prefix(2);
  if (declared.empty() || !std::islower(static_cast<unsigned char>(declared[0]))) return false;
  return declared.size() == catalog_type.size() &&
         std::equal(declared.begin(), declared.end(), catalog_type.begin(), [](char a, char b) {
           return absl::ascii_tolower(static_cast<unsigned char>(a)) ==
                  absl::ascii_tolower(static_cast<unsigned char>(b));
         });
}

absl::StatusOr<PuppetSource> PuppetSource::Parse(std::string text) {
  PuppetSource s;
  s.text_ = std::move(text);
  s.line_starts_.push_back(0);
  for (size_t i = 0; i < s.text_.size(); ++i) {
    if (s.text_[i] == '\n' && i + 1 < s.text_.size()) s.line_starts_.push_back(i + 1);
  }
  Tokenizer tokenizer(s.text_);
  auto tokens = tokenizer.Run();
  if (!tokens.ok()) return tokens.status();
  s.tokens_ = std::move(*tokens);
  s.comments_ = tokenizer.TakeComments();
  return s;
}

std::string_view PuppetSource::TokenText(size_t i) const {
  return std::string_view(text_).substr(tokens_[i].begin, tokens_[i].end - tokens_[i].begin);
}

std::string_view PuppetSource::Slice(size_t first_token, size_t last_token) const {
  const size_t b = tokens_[first_token].begin, e = tokens_[last_token].end;
  return std::string_view(text_).substr(b, e - b);
}

int PuppetSource::LineOf(size_t pos) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
  return static_cast<int>(it - line_starts_.begin());
}

size_t PuppetSource::LineStart(int line) const {
  if (line < 1) return 0;
  if (line > line_count()) return text_.size();
  return line_starts_[line - 1];
}

size_t PuppetSource::LineEnd(int line) const {
  const size_t e = text_.find('\n', LineStart(line));
  return e == std::string::npos ? text_.size() : e;
}

size_t PuppetSource::Column(size_t pos) const { return pos - LineStart(LineOf(pos)); }

std::string_view PuppetSource::Indentation(int line) const {
  const size_t b = LineStart(line), e = LineEnd(line);
  size_t i = b;
  while (i < e && (text_[i] == ' ' || text_[i] == '\t')) ++i;
  return std::string_view(text_).substr(b, i - b);
}

bool PuppetSource::CrlfAt(size_t pos) const {
  const size_t e = LineEnd(LineOf(pos));
  return e > 0 && e < text_.size() && text_[e - 1] == '\r';
}

std::optional<size_t> PuppetSource::ScopeOf(size_t token) const {
  std::optional<size_t> best;
  for (size_t i = 0; i + 1 < tokens_.size(); ++i) {
    const std::string_view w = TokenText(i);
    if (tokens_[i].kind != TokenKind::kName || (w != "class" && w != "define")) continue;
    if (tokens_[i + 1].kind != TokenKind::kName) continue;  // `class { 'x': }` declares
    // The body: the first `{` after the name, past a parameter list and `inherits`.
    size_t j = i + 2;
    while (j < tokens_.size() && !(tokens_[j].kind == TokenKind::kOpen && TokenText(j) == "{")) {
      j = tokens_[j].kind == TokenKind::kOpen ? tokens_[j].match + 1 : j + 1;
    }
    if (j >= tokens_.size()) break;
    if (j < token && token < tokens_[j].match) best = j;  // later openings are inner ones
  }
  return best;
}

std::vector<ResourceBody> PuppetSource::BodiesOf(size_t type_token) const {
  std::vector<ResourceBody> bodies;
  const size_t open = type_token + 1, close = tokens_[open].match;
  size_t i = open + 1;
  while (i < close) {
    ResourceBody b;
    b.type_token = type_token;
    b.open_token = open;
    b.close_token = close;
    b.title_first = i;
    size_t j = i;
    while (j < close && tokens_[j].kind != TokenKind::kColon) {
      j = tokens_[j].kind == TokenKind::kOpen ? tokens_[j].match + 1 : j + 1;
    }
    if (j >= close || j == i) break;
    b.title_last = j - 1;
    b.colon_token = j;
    size_t k = j + 1;
    while (k < close && tokens_[k].kind != TokenKind::kSemicolon) {
      Attribute a;
      a.name = std::string(TokenText(k));
      a.name_token = k;
      if (k + 2 > close || tokens_[k + 1].kind != TokenKind::kArrow) return {};  // not a body
      a.arrow_token = k + 1;
      a.value_first = k + 2;
      size_t v = k + 2;
      while (v < close && tokens_[v].kind != TokenKind::kComma &&
             tokens_[v].kind != TokenKind::kSemicolon) {
        v = tokens_[v].kind == TokenKind::kOpen ? tokens_[v].match + 1 : v + 1;
      }
      if (v == a.value_first) return {};
      a.value_last = v - 1;
      if (v < close && tokens_[v].kind == TokenKind::kComma) {
        a.comma_token = v;
        ++v;
      }
      b.attributes.push_back(std::move(a));
      k = v;
    }
    b.end_token = k;
    // Literal titles: one string, or an array of strings.
    if (b.title_first == b.title_last && tokens_[b.title_first].kind == TokenKind::kString &&
        tokens_[b.title_first].literal) {
      b.literal_titles = std::vector<std::string>{tokens_[b.title_first].value};
    } else if (TokenText(b.title_first) == "[" && tokens_[b.title_first].match == b.title_last) {
      std::vector<std::string> titles;
      bool literal = true;
      for (size_t t = b.title_first + 1; t < b.title_last && literal; ++t) {
        if (tokens_[t].kind == TokenKind::kString && tokens_[t].literal) {
          titles.push_back(tokens_[t].value);
        } else if (tokens_[t].kind != TokenKind::kComma) {
          literal = false;
        }
      }
      if (literal) b.literal_titles = std::move(titles);
    }
    b.scope_open = ScopeOf(type_token);
    bodies.push_back(std::move(b));
    i = k + 1;
  }
  return bodies;
}

absl::StatusOr<ResourceBody> PuppetSource::FindResource(std::string_view type,
                                                        std::string_view title, int line) const {
  std::vector<ResourceBody> candidates;
  for (size_t i = 0; i + 1 < tokens_.size(); ++i) {
    if (tokens_[i].line != line || tokens_[i].kind != TokenKind::kName) continue;
    if (tokens_[i + 1].kind != TokenKind::kOpen || TokenText(i + 1) != "{") continue;
    const std::string_view w = TokenText(i);
    if (IsKeyword(w) || !SameType(w, type)) continue;
    if (i > 0 && tokens_[i - 1].kind == TokenKind::kName &&
        (TokenText(i - 1) == "class" || TokenText(i - 1) == "define" ||
         TokenText(i - 1) == "inherits")) {
      continue;
    }
    for (ResourceBody& b : BodiesOf(i)) candidates.push_back(std::move(b));
  }
  if (candidates.empty()) {
    return absl::NotFoundError(absl::StrCat("no declaration of ", std::string(type), " on line ",
                                            line, " (the catalog's line)"));
  }
  for (const ResourceBody& b : candidates) {
    if (b.literal_titles && std::find(b.literal_titles->begin(), b.literal_titles->end(), title) !=
                                b.literal_titles->end()) {
      return b;
    }
  }
  if (candidates.size() == 1) return candidates.front();
  return absl::FailedPreconditionError(absl::StrCat(
      "several bodies of the ", std::string(type), " declaration on line ", line,
      " could be its title '", std::string(title), "' (titles computed at compile time)"));
}

}  // namespace fsmove::fix
