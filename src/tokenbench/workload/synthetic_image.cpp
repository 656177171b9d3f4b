#include "tokenbench/workload/synthetic_image.h"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <vector>

#include "tokenbench/core/json_parse.h"

namespace tokenbench::workload {
namespace {

// A stream of its own per image: the same (seed, request, index) draws the same picture.
std::mt19937_64 image_stream(std::uint64_t seed, std::uint64_t request, std::uint32_t index) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed),
                    static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(request),
                    static_cast<std::uint32_t>(request >> 32),
                    index,
                    0x696d6167u};
  return std::mt19937_64(seq);
}

struct Rgb {
  int r, g, b;
};

Rgb random_colour(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> c(0, 255);
  const int r = c(rng);
  const int g = c(rng);
  return {r, g, c(rng)};
}

std::uint8_t clamp_byte(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }

// width * height * 3 bytes, row by row.
std::vector<std::uint8_t> draw_pixels(std::mt19937_64& rng, int w, int h) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  // The background: a bilinear blend of four corner colours, smooth so that PNG's filters shrink
  // it to little.
  const Rgb c00 = random_colour(rng), c10 = random_colour(rng), c01 = random_colour(rng),
            c11 = random_colour(rng);
  const auto blend = [](int a, int b, int t, int n) { return a + (b - a) * t / std::max(1, n); };
  for (int y = 0; y < h; ++y) {
    const Rgb left{blend(c00.r, c01.r, y, h - 1), blend(c00.g, c01.g, y, h - 1),
                   blend(c00.b, c01.b, y, h - 1)};
    const Rgb right{blend(c10.r, c11.r, y, h - 1), blend(c10.g, c11.g, y, h - 1),
                    blend(c10.b, c11.b, y, h - 1)};
    // Along the row in 16.16 fixed point: one addition per channel and pixel.
    const int steps = std::max(1, w - 1);
    const std::int32_t dr = ((right.r - left.r) * 65536) / steps;
    const std::int32_t dg = ((right.g - left.g) * 65536) / steps;
    const std::int32_t db = ((right.b - left.b) * 65536) / steps;
    std::int32_t r = left.r * 65536, g = left.g * 65536, b = left.b * 65536;
    std::uint8_t* row = px.data() + static_cast<std::size_t>(y) * w * 3;
    for (int x = 0; x < w; ++x, r += dr, g += dg, b += db) {
      row[x * 3] = clamp_byte(r >> 16);
      row[x * 3 + 1] = clamp_byte(g >> 16);
      row[x * 3 + 2] = clamp_byte(b >> 16);
    }
  }
  // Rectangles: flat, checkered, or noisy (the noise is what keeps the file from being tiny).
  std::uniform_int_distribution<int> count(6, 12);
  const int rects = count(rng);
  for (int i = 0; i < rects; ++i) {
    std::uniform_int_distribution<int> style_of(0, 2);
    const int style = style_of(rng);
    const int max_w = std::max(1, style == 2 ? w / 6 : w / 3);
    const int max_h = std::max(1, style == 2 ? h / 6 : h / 3);
    std::uniform_int_distribution<int> rw(1, max_w), rh(1, max_h);
    const int rect_w = rw(rng);
    const int rect_h = rh(rng);
    std::uniform_int_distribution<int> rx(0, w - rect_w), ry(0, h - rect_h);
    const int x0 = rx(rng);
    const int y0 = ry(rng);
    const Rgb a = random_colour(rng);
    const Rgb b = random_colour(rng);
    // Noise of +-32 per channel, three channels from one draw.
    const auto noise = [](std::uint64_t bits, int shift) {
      return static_cast<int>((bits >> shift) & 0xff) % 65 - 32;
    };
    for (int y = y0; y < y0 + rect_h; ++y) {
      std::uint8_t* row = px.data() + static_cast<std::size_t>(y) * w * 3;
      for (int x = x0; x < x0 + rect_w; ++x) {
        Rgb c = a;
        if (style == 1 && ((x / 8 + y / 8) % 2) == 1) c = b;
        if (style == 2) {
          const std::uint64_t bits = rng();
          c = {a.r + noise(bits, 0), a.g + noise(bits, 8), a.b + noise(bits, 16)};
        }
        row[x * 3] = clamp_byte(c.r);
        row[x * 3 + 1] = clamp_byte(c.g);
        row[x * 3 + 2] = clamp_byte(c.b);
      }
    }
  }
  return px;
}

void append_to(png_structp png, png_bytep data, png_size_t len) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), len);
}

void flush_nothing(png_structp) {}

// libpng reports errors by longjmp: this frame holds nothing with a destructor.
bool encode_png(const std::uint8_t* px, int w, int h, std::string* out) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, out, append_to, flush_nothing);
  png_set_IHDR(png, info, static_cast<png_uint_32>(w), static_cast<png_uint_32>(h), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  // Fast deflate and one filter: a run's images are made before it starts, thousands of them.
  png_set_compression_level(png, 1);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y) {
    png_write_row(png, px + static_cast<std::size_t>(y) * static_cast<std::size_t>(w) * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

nlohmann::json image_part(std::uint64_t seed, std::uint64_t request, std::uint32_t index,
                          ImageSize size) {
  const std::string url =
      "data:image/png;base64," + base64_encode(synthetic_png(seed, request, index, size));
  return {{"type", "image_url"}, {"image_url", {{"url", url}}}};
}

}  // namespace

ImageSize parse_image_size(const std::string& text) {
  const auto bad = [&]() {
    throw std::invalid_argument("--image-size '" + text + "': give WxH in pixels, each 1 to " +
                                std::to_string(kMaxImageSide) + ", e.g. 512x512");
  };
  const auto x = text.find('x');
  if (x == std::string::npos || x == 0 || x + 1 >= text.size() || x > 5 || text.size() - x > 6) {
    bad();
  }
  const auto side = [&](const std::string& s) {
    if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) bad();
    const int v = std::stoi(s);
    if (v < 1 || v > kMaxImageSide) bad();
    return v;
  };
  return {side(text.substr(0, x)), side(text.substr(x + 1))};
}

std::string synthetic_png(std::uint64_t seed, std::uint64_t request, std::uint32_t index,
                          ImageSize size) {
  auto rng = image_stream(seed, request, index);
  const std::vector<std::uint8_t> px = draw_pixels(rng, size.width, size.height);
  std::string out;
  out.reserve(px.size() / 4);
  if (!encode_png(px.data(), size.width, size.height, &out)) {
    throw std::runtime_error("libpng could not encode a synthetic image");
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const auto v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                   static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += kDigits[(v >> 6) & 63];
    out += kDigits[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

void attach_images(core::RequestSpec& spec, std::uint64_t seed, int count, ImageSize size) {
  nlohmann::json messages;
  nlohmann::json* user = nullptr;
  if (spec.messages_json.empty()) {
    messages = nlohmann::json::array({{{"role", "user"}, {"content", spec.prompt}}});
    user = &messages[0];
  } else {
    messages = core::parse_json(spec.messages_json);
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
      if (it->is_object() && it->value("role", "") == "user") {
        user = &*it;
        break;
      }
    }
    if (user == nullptr) {
      throw std::runtime_error("request " + std::to_string(spec.id) +
                               ": --image-count needs a user message to add images to");
    }
  }
  nlohmann::json& content = (*user)["content"];
  if (!content.is_array()) {
    const std::string text = content.is_string() ? content.get<std::string>() : "";
    content = nlohmann::json::array({{{"type", "text"}, {"text", text}}});
  }
  for (int i = 0; i < count; ++i) {
    content.push_back(image_part(seed, spec.id, static_cast<std::uint32_t>(i), size));
  }
  spec.messages_json = messages.dump();
}

}  // namespace tokenbench::workload
