#pragma once

// Tiny image headers as base64, for the simulator's image-token tests. Test-only.

#include <cstdint>
#include <string>
#include <vector>

namespace tokenbench::sim::testing {

inline std::string to_base64(const std::vector<unsigned char>& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (i + 1 == bytes.size()) {
    const std::uint32_t v = bytes[i] << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const std::uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

/// The first 33 bytes of a PNG of `width` x `height` (signature and IHDR chunk), in base64.
inline std::string png_base64(std::uint32_t width, std::uint32_t height) {
  std::vector<unsigned char> b = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                  0,    0,   0,   13,  'I',  'H',  'D',  'R'};
  for (const std::uint32_t v : {width, height}) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(v >> s));
  }
  for (int i = 0; i < 9; ++i) b.push_back(i == 0 ? 8 : 0);  // depth, colour type, ..., CRC
  return to_base64(b);
}

/// A JPEG's SOI, an APP0 segment and a SOF0 segment for `width` x `height`, in base64.
inline std::string jpeg_base64(std::uint16_t width, std::uint16_t height) {
  std::vector<unsigned char> b = {0xff, 0xd8, 0xff, 0xe0, 0, 4, 'J', 'F'};
  const std::vector<unsigned char> sof = {0xff,
                                          0xc0,
                                          0,
                                          11,
                                          8,
                                          static_cast<unsigned char>(height >> 8),
                                          static_cast<unsigned char>(height),
                                          static_cast<unsigned char>(width >> 8),
                                          static_cast<unsigned char>(width),
                                          1,
                                          1,
                                          0x11,
                                          0};
  b.insert(b.end(), sof.begin(), sof.end());
  return to_base64(b);
}

}  // namespace tokenbench::sim::testing
