// client::redact, which removes the API key from text meant for people. The first input byte is
// the key's length (mod 32); the key follows, then the text. Invariants: it ends, it cuts exactly
// the occurrences a left-to-right scan of the original text finds standing alone (a key of 16
// bytes or more always; a shorter one unless glued to letters or digits on either side), and a
// long key that shares no character with "<redacted>" is gone.

#include <cctype>

#include "fuzz_support.h"
#include "tokenbench/client/credentials.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view rest = tokenbench::fuzz::as_view(data + 1, size - 1);
  const std::size_t key_size = std::min<std::size_t>(data[0] % 32, rest.size());
  const std::string secret(rest.substr(0, key_size));
  const std::string text(rest.substr(key_size));
  const std::string out = tokenbench::client::redact(text, secret);
  // The reference judges each occurrence on the original text.
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const auto alone = [&](std::size_t at) {
    if (secret.size() >= tokenbench::client::kWholeWordSecret) return true;
    if (at > 0 && word(text[at - 1]) && word(secret.front())) return false;
    const std::size_t end = at + secret.size();
    return !(end < text.size() && word(text[end]) && word(secret.back()));
  };
  std::string expected;
  std::size_t pos = 0;
  if (!secret.empty()) {
    for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
      if (!alone(at)) {
        ++at;
        continue;
      }
      expected.append(text, pos, at - pos).append("<redacted>");
      pos = at = at + secret.size();
    }
  }
  expected.append(text, pos);
  if (out != expected) tokenbench::fuzz::fail("redact differs from the reference");
  // A long key that shares no character with the marker cannot survive.
  if (secret.size() >= tokenbench::client::kWholeWordSecret &&
      secret.find_first_of("<redact>") == std::string::npos &&
      out.find(secret) != std::string::npos) {
    tokenbench::fuzz::fail("the key is still in the redacted text");
  }
  return 0;
}
