#pragma once

#include <boost/asio/ip/tcp.hpp>

#include "tokenbench/sim/loop_timers.h"
#include "tokenbench/sim/server_context.h"

namespace tokenbench::sim {

/// Serves one accepted connection until it closes: reads HTTP/1.1 requests (keep-alive), routes
/// them (route_request(), router.h), and writes replies, streaming generations over chunked
/// transfer encoding. The request in progress is an Exchange (exchange.h), its tokens come from
/// a TokenFeed (token_feed.h: fixed delays or the engine model) and its bytes from its API's
/// ReplyRenderer (reply_renderer.h). Internal to sim/. Must be called on the thread that runs the
/// socket's io_context; the session then lives on that thread only, owned by its pending handlers
/// (and, while a request is in the engine, by the engine). `context` must outlive the io_context;
/// `loop` is the index of that io_context among the server's loops (the engine posts tokens there)
/// and `timers` its timers (a session waiting for its next token is scheduled there); both must
/// outlive the session's handlers.
void start_http_session(boost::asio::ip::tcp::socket socket, ServerContext& context,
                        std::size_t loop, LoopTimers& timers);

}  // namespace tokenbench::sim
