// client::redact, which removes the API key from text meant for people. The first input byte is
// the key's length (mod 32); the key follows, then the text. Invariants: it ends, as a plain
// replacement does, and a key that shares no character with "<redacted>" is gone.

#include "fuzz_support.h"
#include "tokenbench/client/credentials.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view rest = tokenbench::fuzz::as_view(data + 1, size - 1);
  const std::size_t key_size = std::min<std::size_t>(data[0] % 32, rest.size());
  const std::string secret(rest.substr(0, key_size));
  const std::string text(rest.substr(key_size));
  const std::string out = tokenbench::client::redact(text, secret);
  // A plain left-to-right replacement of non-overlapping occurrences is the reference.
  std::string expected;
  std::size_t pos = 0;
  if (!secret.empty()) {
    for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, pos)) {
      expected.append(text, pos, at - pos).append("<redacted>");
      pos = at + secret.size();
    }
  }
  expected.append(text, pos);
  if (out != expected) tokenbench::fuzz::fail("redact differs from a plain replacement");
  // A key that shares no character with the marker cannot survive.
  if (!secret.empty() && secret.find_first_of("<redact>") == std::string::npos &&
      out.find(secret) != std::string::npos) {
    tokenbench::fuzz::fail("the key is still in the redacted text");
  }
  return 0;
}
