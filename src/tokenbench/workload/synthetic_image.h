#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenbench/core/request.h"

namespace tokenbench::workload {

/// An image's size in pixels (--image-size WxH).
struct ImageSize {
  int width = 512;
  int height = 512;
};

/// The largest side --image-size accepts.
inline constexpr int kMaxImageSide = 4096;

/// Parses "WxH" (each side 1 to kMaxImageSide). Throws std::invalid_argument with one line
/// naming --image-size and the accepted form.
ImageSize parse_image_size(const std::string& text);

/// A PNG (8-bit RGB) of `size`, the same bytes for the same (seed, request, index) and different
/// ones for another: a smooth gradient between four seeded corner colours with seeded rectangles
/// on it, flat, checkered or noisy, so that it compresses like a picture rather than to nothing
/// (about 95 KB at 512x512; docs/WORKLOADS.md). Thread-safe: each call has its own state.
/// Throws std::runtime_error if libpng fails.
std::string synthetic_png(std::uint64_t seed, std::uint64_t request, std::uint32_t index,
                          ImageSize size);

/// Standard base64 (RFC 4648, with '=' padding) of `bytes`.
std::string base64_encode(std::string_view bytes);

/// Adds `count` images synthetic_png(seed, spec.id, 0..count-1) to a chat request, as data URLs
/// after its text: without messages_json, messages_json becomes a single user message whose
/// content is [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url":
/// "data:image/png;base64,..."}} x count]; with messages_json (a jsonl dataset's), its last user
/// message gets the images the same way. Throws std::runtime_error for messages with no user turn.
void attach_images(core::RequestSpec& spec, std::uint64_t seed, int count, ImageSize size);

}  // namespace tokenbench::workload
