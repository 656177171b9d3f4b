#include "tokenbench/sim/loop_timers.h"

#include <sys/timerfd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <type_traits>
#include <utility>

namespace tokenbench::sim {

using core::Clock;

namespace {
constexpr auto kTick = std::chrono::microseconds(100);
constexpr std::size_t kSlots = 4096;  // a 410 ms horizon; later deadlines wait in the overflow

int make_timerfd() {
  const int fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "serve-sim: timerfd_create");
  return fd;
}
}  // namespace

LoopTimers::LoopTimers(boost::asio::io_context& ioc)
    : wheel_(kTick, kSlots, Clock::now()), timer_(ioc, make_timerfd()) {
  static_assert(std::is_same_v<Clock, std::chrono::steady_clock>,
                "timerfd deadlines are CLOCK_MONOTONIC, steady_clock's");
}

LoopTimers::~LoopTimers() {
  // Fire nothing: take each task out and drop the loop's hold (which may destroy it).
  wheel_.advance(Clock::time_point::max(), [](TimerWheel::Entry& e) {
    auto hold = std::move(static_cast<TimedTask&>(e).hold_);
  });
}

void LoopTimers::schedule(std::shared_ptr<TimedTask> task, Clock::time_point due) {
  TimedTask& t = *task;
  wheel_.schedule(t, due);
  t.hold_ = std::move(task);
  if (!advancing_ && due < armed_) arm();
}

void LoopTimers::cancel(TimedTask& task) {
  wheel_.cancel(task);
  // The caller holds the task (it is running one of its methods): dropping the hold is safe.
  task.hold_.reset();
}

void LoopTimers::arm() {
  const auto next = wheel_.next_due();
  if (!next || *next == armed_) return;
  armed_ = *next;
  // An absolute CLOCK_MONOTONIC deadline; one already passed fires at once. Setting the timer
  // clears its expirations, so it is never read: each expiry is a new edge for epoll.
  const auto ns = std::max<std::int64_t>(
      1, std::chrono::duration_cast<std::chrono::nanoseconds>(next->time_since_epoch()).count());
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  ::timerfd_settime(timer_.native_handle(), TFD_TIMER_ABSTIME, &spec, nullptr);
  if (waiting_) return;
  waiting_ = true;
  timer_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                    [this](const boost::system::error_code& ec) {
                      waiting_ = false;
                      if (!ec) on_timer();
                    });
}

void LoopTimers::on_timer() {
  armed_ = Clock::time_point::max();
  advancing_ = true;
  wheel_.advance(Clock::now(), [](TimerWheel::Entry& e) {
    auto& task = static_cast<TimedTask&>(e);
    const auto hold = std::move(task.hold_);
    task.on_due();
  });
  advancing_ = false;
  arm();
}

}  // namespace tokenbench::sim
