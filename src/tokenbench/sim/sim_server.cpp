#include "tokenbench/sim/sim_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tokenbench/sim/http_session.h"
#include "tokenbench/sim/loop_timers.h"
#include "tokenbench/sim/server_context.h"

namespace tokenbench::sim {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// One event loop and its thread. Connections handed to a loop live on it only.
struct Loop {
  // A concurrency hint of 1 lets asio skip locking inside the loop.
  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  // Destroyed before ioc, after the thread has been joined: drops the sessions it holds.
  LoopTimers timers{ioc};
  std::thread thread;
};

}  // namespace

struct SimServer::Impl {
  explicit Impl(SimConfig config) : ctx(std::move(config)) {}

  void accept_next();
  void on_accept(error_code ec, tcp::socket socket, std::size_t loop_index);

  // Declared first so that it outlives the loops and every session they own.
  ServerContext ctx;
  std::vector<std::unique_ptr<Loop>> loops;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<asio::steady_timer> retry_timer;
  std::size_t next_loop = 0;
  std::uint16_t port = 0;
  std::mutex mu;  // guards the started/stopped transitions
  bool started = false;
  bool stopped = false;
};

void SimServer::Impl::accept_next() {
  const std::size_t index = next_loop;
  next_loop = (next_loop + 1) % loops.size();
  acceptor->async_accept(loops[index]->ioc, [this, index](error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket), index);
  });
}

void SimServer::Impl::on_accept(error_code ec, tcp::socket socket, std::size_t loop_index) {
  if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
  if (ec) {
    // E.g. out of file descriptors: back off briefly instead of spinning.
    retry_timer->expires_after(std::chrono::milliseconds(10));
    retry_timer->async_wait([this](error_code wec) {
      if (!wec) accept_next();
    });
    return;
  }
  asio::post(loops[loop_index]->ioc, [this, s = std::move(socket), loop_index]() mutable {
    start_http_session(std::move(s), ctx, loop_index, loops[loop_index]->timers);
  });
  accept_next();
}

SimServer::SimServer(SimConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}

SimServer::~SimServer() { stop(); }

void SimServer::start() {
  std::lock_guard lock(impl_->mu);
  if (impl_->started) throw std::runtime_error("serve-sim: the server was already started");
  const SimConfig& config = impl_->ctx.config;
  const int threads = std::max(1, config.threads);
  for (int i = 0; i < threads; ++i) impl_->loops.push_back(std::make_unique<Loop>());
  auto& ioc0 = impl_->loops.front()->ioc;

  const std::string where = fmt::format("{}:{}", config.host, config.port);
  error_code ec;
  tcp::resolver resolver(ioc0);
  const auto results =
      resolver.resolve(config.host, std::to_string(config.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    throw std::runtime_error(
        fmt::format("cannot resolve host '{}': {}", config.host, ec ? ec.message() : "no address"));
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  auto acceptor = std::make_unique<tcp::acceptor>(ioc0);
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot listen on {}: {}", where, ec.message()));
  impl_->port = acceptor->local_endpoint(ec).port();
  if (ec) throw std::runtime_error(fmt::format("cannot listen on {}: {}", where, ec.message()));

  impl_->acceptor = std::move(acceptor);
  impl_->retry_timer = std::make_unique<asio::steady_timer>(ioc0);
  impl_->started = true;
  if (impl_->ctx.engine) {
    std::vector<asio::io_context*> iocs;
    for (auto& loop : impl_->loops) iocs.push_back(&loop->ioc);
    impl_->ctx.engine->start(std::move(iocs));
  }
  impl_->accept_next();
  for (auto& loop : impl_->loops) {
    loop->thread = std::thread([l = loop.get()] { l->ioc.run(); });
  }
}

std::uint16_t SimServer::port() const { return impl_->port; }

void SimServer::stop() {
  std::lock_guard lock(impl_->mu);
  if (!impl_->started || impl_->stopped) return;
  impl_->stopped = true;
  if (impl_->ctx.engine) impl_->ctx.engine->stop();
  for (auto& loop : impl_->loops) {
    loop->work.reset();
    loop->ioc.stop();
  }
  for (auto& loop : impl_->loops) {
    if (loop->thread.joinable()) loop->thread.join();
  }
  // Bodies being routed finish (their replies are posted to the stopped loops, and destroyed
  // with them below).
  impl_->ctx.route_pool->join();
  impl_->ctx.stopping = true;
  if (impl_->ctx.prefill_pool) impl_->ctx.prefill_pool->join();
  // With every thread joined, nothing runs concurrently: close the acceptor, then destroy the
  // loops, which destroys the pending handlers and with them the sessions and their sockets.
  error_code ignored;
  impl_->acceptor->close(ignored);
  // The engine holds sessions (and so sockets) of requests in flight: drop them while their
  // io_contexts still exist.
  if (impl_->ctx.engine) impl_->ctx.engine->clear();
  impl_->retry_timer.reset();
  impl_->acceptor.reset();
  impl_->loops.clear();
}

}  // namespace tokenbench::sim
