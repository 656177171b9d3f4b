#include "tokenbench/sim/image_tokens.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace tokenbench::sim {
namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Decodes standard or URL-safe base64 (padding and whitespace ignored); false on another byte.
bool decode_base64(std::string_view text, std::vector<unsigned char>& out) {
  out.clear();
  out.reserve(text.size() / 4 * 3 + 3);
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    const int v = base64_value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<unsigned char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}

std::uint32_t be16(const unsigned char* p) { return (std::uint32_t{p[0]} << 8) | p[1]; }

std::variant<ImageSize, std::string> png_size(const std::vector<unsigned char>& b) {
  // Signature (8 bytes), then the IHDR chunk: length (4), "IHDR", width (4), height (4).
  if (b.size() < 24 || b[12] != 'I' || b[13] != 'H' || b[14] != 'D' || b[15] != 'R') {
    return std::string("the PNG image has no IHDR header");
  }
  return ImageSize{be32(&b[16]), be32(&b[20])};
}

std::variant<ImageSize, std::string> jpeg_size(const std::vector<unsigned char>& b) {
  std::size_t i = 2;  // after SOI
  while (i + 4 <= b.size()) {
    if (b[i] != 0xff) return std::string("the JPEG image is malformed");
    const unsigned char marker = b[i + 1];
    if (marker == 0xff) {  // fill byte
      ++i;
      continue;
    }
    if (marker == 0xd8 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;  // markers without a length
      continue;
    }
    const std::uint32_t length = be16(&b[i + 2]);
    // SOF0..SOF15 carry the size, except DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc) {
      if (i + 9 > b.size()) break;
      return ImageSize{be16(&b[i + 7]), be16(&b[i + 5])};
    }
    i += 2 + length;
  }
  return std::string("the JPEG image has no SOF header");
}

}  // namespace

std::int64_t image_tokens(std::int64_t width, std::int64_t height) {
  const auto patches = [](std::int64_t px) {
    return std::max<std::int64_t>(1, (px + kImagePatchPixels - 1) / kImagePatchPixels);
  };
  return patches(width) * patches(height);
}

std::variant<ImageSize, std::string> image_size_from_base64(std::string_view base64) {
  std::vector<unsigned char> bytes;
  if (!decode_base64(base64, bytes)) return std::string("the image data is not valid base64");
  static constexpr unsigned char kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() >= 8 && std::equal(std::begin(kPng), std::end(kPng), bytes.begin())) {
    return png_size(bytes);
  }
  if (bytes.size() >= 4 && bytes[0] == 0xff && bytes[1] == 0xd8) return jpeg_size(bytes);
  return std::string("the image is neither a PNG nor a JPEG");
}

std::variant<ImageSize, std::string> image_size_from_data_url(std::string_view url) {
  constexpr std::string_view kData = "data:";
  const std::size_t comma = url.find(',');
  if (url.substr(0, kData.size()) != kData || comma == std::string_view::npos) {
    return std::string(
        "only data: URLs (data:image/png;base64,...) are accepted: the simulator fetches no "
        "images");
  }
  const std::string_view meta = url.substr(kData.size(), comma - kData.size());
  constexpr std::string_view kBase64 = ";base64";
  if (meta.size() < kBase64.size() || meta.substr(meta.size() - kBase64.size()) != kBase64) {
    return std::string("the image data: URL is not base64 (data:image/png;base64,...)");
  }
  return image_size_from_base64(url.substr(comma + 1));
}

}  // namespace tokenbench::sim
