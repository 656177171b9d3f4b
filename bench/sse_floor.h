#pragma once

#include <cstdint>

namespace tokenbench::bench {

/// The floor of a paced SSE server, for bench/load_bench.cpp (--floor): a minimal epoll HTTP/1.1
/// server on 127.0.0.1 that does nothing but stream. Each POST gets a chunked SSE reply of
/// `tokens` pre-rendered chat.completion.chunk events, one per tick of a single periodic timerfd
/// (every `itl_us` microseconds, the same instant for every stream), the head with the first
/// and the end (finish, usage, [DONE], last chunk) with the last, one write() each; any GET gets
/// 404 and a close. No routing, no JSON parsing, no per-request timeline, no timers per stream:
/// what is left is the event loop's wake-up and the write syscall of each event.
///
/// Binds port 0, writes the bound port (std::uint16_t) to `port_fd`, then serves until killed.
[[noreturn]] void run_floor_server(int itl_us, int tokens, int port_fd);

}  // namespace tokenbench::bench
