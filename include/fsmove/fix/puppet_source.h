// Just enough of Puppet's syntax to edit a resource declaration in place: a tokenizer that
// knows strings (escapes, interpolation), comments, heredocs and brackets, and a finder for
// `type { 'title': attr => value, ... }` at the line the catalog gives, with its attributes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::fix {

enum class TokenKind : unsigned char {
  kName,      // a bare word or qualified name: file, apache::vhost, ensure, true
  kVariable,  // $x, $::x, $facts
  kString,    // '...', "...", or a heredoc's opening @(TAG) (its text is skipped)
  kNumber,
  kRegex,      // /.../ after =~, !~ or node
  kOpen,       // { [ (
  kClose,      // } ] )
  kArrow,      // => or +>
  kComma,      // ,
  kSemicolon,  // ;
  kColon,      // :
  kOther,      // operators and anything else
};

struct Token {
  TokenKind kind = TokenKind::kOther;
  size_t begin = 0;  // byte offsets into the text
  size_t end = 0;
  int line = 1;  // of `begin`, 1-based
  // kString: no interpolation (a literal); its value, unescaped.
  bool literal = false;
  std::string value;
  size_t match = 0;  // kOpen / kClose: the index of the matching bracket token
};

// One `name => value` of a resource body. Token indices are into PuppetSource::tokens().
struct Attribute {
  std::string name;  // "require", "*" for a splat
  size_t name_token = 0;
  size_t arrow_token = 0;
  size_t value_first = 0;  // first token of the value
  size_t value_last = 0;   // last token of the value (inclusive)
  std::optional<size_t> comma_token;
};

// One title's body of a resource declaration: `'title': attributes` up to its `;` or `}`.
struct ResourceBody {
  size_t type_token = 0;   // `file` in `file { ... }`
  size_t open_token = 0;   // the declaration's `{`
  size_t close_token = 0;  // the declaration's `}`
  size_t title_first = 0;  // the title's first token
  size_t title_last = 0;   // its last token (before the `:`)
  size_t colon_token = 0;
  size_t end_token = 0;  // the `;` ending this body, or the declaration's `}`
  std::vector<Attribute> attributes;
  // The titles when the title is a literal string or an array of literal strings.
  std::optional<std::vector<std::string>> literal_titles;
  // The innermost `class NAME ... {` or `define NAME ... {` body holding the declaration: its
  // `{` token, or nullopt at top level (a manifest's node scope).
  std::optional<size_t> scope_open;
};

// A `#` comment: from its `#` to the end of its line (the newline excluded).
struct Comment {
  size_t begin = 0;
  size_t end = 0;
  int line = 1;
};

class PuppetSource {
 public:
  // Tokenizes `text`; errors for an unterminated string or comment, or unbalanced brackets,
  // with the line.
  static absl::StatusOr<PuppetSource> Parse(std::string text);

  const std::string& text() const { return text_; }
  const std::vector<Token>& tokens() const { return tokens_; }
  const std::vector<Comment>& comments() const { return comments_; }
  std::string_view TokenText(size_t i) const;
  std::string_view Slice(size_t first_token, size_t last_token) const;  // inclusive

  // The body declaring the resource `type` (catalog spelling: File, Apache::Vhost) titled
  // `title`, whose declaration starts on `line` (Puppet's line of a resource is that of its
  // type keyword). NotFound when there is none; FailedPrecondition when several bodies there
  // could be it (titles that are expressions).
  absl::StatusOr<ResourceBody> FindResource(std::string_view type, std::string_view title,
                                            int line) const;

  // The column (0-based, in bytes) of offset `pos` on its line, and the line's leading
  // whitespace.
  size_t Column(size_t pos) const;
  std::string_view Indentation(int line) const;
  size_t LineStart(int line) const;  // offset of the first byte of `line`
  size_t LineEnd(int line) const;    // offset of its '\n' (or the text's end)
  int LineOf(size_t pos) const;
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  // Whether the line of `pos` ends in "\r\n".
  bool CrlfAt(size_t pos) const;

 private:
  std::vector<ResourceBody> BodiesOf(size_t type_token) const;
  std::optional<size_t> ScopeOf(size_t token) const;

  std::string text_;
  std::vector<Token> tokens_;
  std::vector<Comment> comments_;
  std::vector<size_t> line_starts_;
};

// Puppet's spelling of a type in a declaration (lower case, no leading ::) compared with the
// catalog's (File, Apache::Vhost).
bool SameType(std::string_view declared, std::string_view catalog_type);

}  // namespace fsmove::fix
