#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <memory>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/timer_wheel.h"

namespace tokenbench::sim {

/// Something that waits for a moment on a LoopTimers: a session waiting for its next token.
class TimedTask : public TimerWheel::Entry {
 public:
  /// Runs on the loop's thread at the time given to LoopTimers::schedule(), or after it (never
  /// before). The task is still alive: the loop held it until now.
  virtual void on_due() = 0;

 protected:
  ~TimedTask() = default;

 private:
  friend class LoopTimers;
  std::shared_ptr<TimedTask> hold_;  ///< set while scheduled: the loop keeps the task alive
};

/// The timers of one io loop: a TimerWheel (100 µs ticks, 4,096 slots) driven by one timerfd of
/// its own in the loop's epoll set, armed at the wheel's earliest deadline, so that the loop wakes
/// once for every task due by then, whatever their number: a wake costs epoll_wait and one
/// timerfd_settime, and a task nothing but its wheel entry. Owned by its loop and used on the
/// loop's thread only (whose io_context must run on that one thread: the timerfd is
/// edge-triggered and re-armed before the loop polls again); must be destroyed before its
/// io_context.
class LoopTimers {
 public:
  /// Throws std::system_error when no timerfd can be made.
  explicit LoopTimers(boost::asio::io_context& ioc);
  ~LoopTimers();  ///< lets go of the tasks still scheduled, without running them
  LoopTimers(const LoopTimers&) = delete;
  LoopTimers& operator=(const LoopTimers&) = delete;

  /// Runs task->on_due() at `due` or later, holding `task` until then; replaces the task's
  /// earlier schedule.
  void schedule(std::shared_ptr<TimedTask> task, core::Clock::time_point due);
  /// Unschedules `task` (a no-op when it is not scheduled) and lets go of it.
  void cancel(TimedTask& task);

 private:
  void arm();
  void on_timer();

  TimerWheel wheel_;
  boost::asio::posix::stream_descriptor timer_;                     ///< the timerfd
  core::Clock::time_point armed_ = core::Clock::time_point::max();  ///< timer_'s expiry, if set
  bool waiting_ = false;    ///< a wait for timer_ to expire is pending
  bool advancing_ = false;  ///< on_timer() re-arms once at its end
};

}  // namespace tokenbench::sim
