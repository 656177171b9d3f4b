#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::tokenizer {

class Regex;

/// The pieces of one stretch of text during pre-tokenization: views into the caller's text or
/// into `owned`, which keeps text that a step rewrote. Scratch state of one encode call; one
/// thread at a time.
struct PreTokenized {
  std::vector<std::string_view> pieces;
  /// Rewritten text; a deque so that earlier strings keep their addresses.
  std::deque<std::string> owned;
  /// True when pieces[0] starts at offset 0 of the text given to encode (Metaspace's "first").
  bool first_at_origin = false;
  /// Scratch for the next list of pieces.
  std::vector<std::string_view> next;

  /// Starts over with one piece.
  void reset(std::string_view text, bool at_origin);
  /// Stores `text` and returns a view of it that stays valid until reset().
  std::string_view own(std::string text);
};

/// What a split does with the delimiters that its pattern matches (HF SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

/// When Metaspace puts its replacement character before a piece.
enum class PrependScheme { kAlways, kFirst, kNever };

/// One tokenizer.json `pre_tokenizer` step: splits (and may rewrite) every piece. Immutable;
/// pre_tokenize() is safe from several threads on distinct PreTokenized objects.
class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(PreTokenized& text) const = 0;
};

/// `Split` by a pattern (takes ownership), with `invert` swapping matches and gaps.
std::unique_ptr<PreTokenizer> make_split_pre_tokenizer(std::unique_ptr<Regex> pattern,
                                                       SplitBehavior behavior, bool invert);
/// `ByteLevel`: optional leading space, optional GPT-2 regex split. The byte-to-character mapping
/// itself is not done here: byte-level models work on raw bytes.
std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(bool add_prefix_space, bool use_regex);
/// `Digits`: isolates each digit (individual) or each run of digits.
std::unique_ptr<PreTokenizer> make_digits_pre_tokenizer(bool individual_digits);
/// `Metaspace`: spaces become `replacement`, which is prepended per `scheme`; with `split`, each
/// piece is split before every replacement character.
std::unique_ptr<PreTokenizer> make_metaspace_pre_tokenizer(std::string replacement,
                                                           PrependScheme scheme, bool split);
/// `Whitespace`: keeps runs of word characters and runs of other non-space characters.
std::unique_ptr<PreTokenizer> make_whitespace_pre_tokenizer();
/// `WhitespaceSplit`: splits on Unicode whitespace, dropping it.
std::unique_ptr<PreTokenizer> make_whitespace_split_pre_tokenizer();
/// `Sequence`: applies `steps` in order.
std::unique_ptr<PreTokenizer> make_sequence_pre_tokenizer(
    std::vector<std::unique_ptr<PreTokenizer>> steps);

}  // namespace tokenbench::tokenizer
