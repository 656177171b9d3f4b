#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace tokenbench::sim {

/// The side of one image patch, in pixels (Qwen2-VL's 14-px patches merged 2x2).
inline constexpr std::int64_t kImagePatchPixels = 28;

/// The prompt tokens that an image of `width` x `height` pixels costs:
/// ceil(width / 28) * ceil(height / 28), at least 1.
std::int64_t image_tokens(std::int64_t width, std::int64_t height);

/// An image's size in pixels.
struct ImageSize {
  std::int64_t width = 0;
  std::int64_t height = 0;
};

/// Reads the size of a PNG (IHDR) or JPEG (SOFn) image from its base64 text. A message saying
/// what is wrong when the text is not base64 or the image not a PNG or JPEG. Pure; any thread.
std::variant<ImageSize, std::string> image_size_from_base64(std::string_view base64);

/// The same for a `data:<media type>;base64,<data>` URL; any other URL (http:, https:, a file) is
/// refused with a message, since the simulator fetches nothing.
std::variant<ImageSize, std::string> image_size_from_data_url(std::string_view url);

}  // namespace tokenbench::sim
