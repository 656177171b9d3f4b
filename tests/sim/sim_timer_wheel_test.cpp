// The timer wheel alone, with made-up times: ordering, exact deadlines, coalescing, cancellation,
// far deadlines; then LoopTimers on a real io_context.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include "tokenbench/sim/loop_timers.h"
#include "tokenbench/sim/timer_wheel.h"

namespace tokenbench::sim {
namespace {

using core::Clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kT0 = Clock::time_point{} + seconds(1000);

struct Item : TimerWheel::Entry {
  int id = 0;
};

// A wheel of 100 µs ticks and 64 slots (a 6.4 ms horizon), and what each advance fired.
// The items outlive the wheel, which unlinks those left when it goes.
struct Fixture {
  std::vector<Item> items;
  std::vector<std::vector<int>> fired;  // ids per advance
  TimerWheel wheel{microseconds(100), 64, kT0};

  explicit Fixture(std::size_t n) : items(n) {
    for (std::size_t i = 0; i < n; ++i) items[i].id = static_cast<int>(i);
  }

  std::vector<int> advance(Clock::time_point now) {
    std::vector<int> ids;
    wheel.advance(now, [&](TimerWheel::Entry& e) {
      const auto& item = static_cast<Item&>(e);
      EXPECT_LE(item.due(), now) << "item " << item.id << " fired early";
      EXPECT_FALSE(item.scheduled());
      ids.push_back(item.id);
    });
    fired.push_back(ids);
    return ids;
  }
};

TEST(SimTimerWheel, FiresInDeadlineOrderAcrossTicks) {
  Fixture f(5);
  // Scheduled out of order, each in its own tick.
  const int order[] = {3, 0, 4, 1, 2};
  for (int i : order) f.wheel.schedule(f.items[i], kT0 + microseconds(150 + 300 * i));
  EXPECT_EQ(f.wheel.size(), 5u);
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(150));
  EXPECT_EQ(f.advance(kT0 + milliseconds(5)), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(f.wheel.size(), 0u);
  EXPECT_EQ(f.wheel.next_due(), std::nullopt);
}

TEST(SimTimerWheel, NothingFiresBeforeItsDeadline) {
  // Deadlines inside one tick: the tick only sorts, the exact deadline decides.
  Fixture f(3);
  f.wheel.schedule(f.items[0], kT0 + microseconds(110));
  f.wheel.schedule(f.items[1], kT0 + microseconds(150));
  f.wheel.schedule(f.items[2], kT0 + microseconds(190));
  EXPECT_TRUE(f.advance(kT0 + microseconds(109)).empty());
  EXPECT_EQ(f.advance(kT0 + microseconds(110)), (std::vector<int>{0}));
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(150));
  EXPECT_TRUE(f.advance(kT0 + microseconds(149)).empty());
  EXPECT_EQ(f.advance(kT0 + microseconds(189)), (std::vector<int>{1}));
  EXPECT_EQ(f.advance(kT0 + microseconds(190)), (std::vector<int>{2}));
}

TEST(SimTimerWheel, RandomDeadlinesFireOnTimeAndOnce) {
  // Many deadlines over several turns of the wheel, advanced in uneven steps: each fires exactly
  // once, at the first advance at or after its deadline.
  constexpr std::size_t kN = 2000;
  Fixture f(kN);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> us(0, 20'000);  // about three turns
  for (auto& item : f.items) f.wheel.schedule(item, kT0 + microseconds(us(rng)));
  std::vector<int> fired_at(kN, -1);
  Clock::time_point now = kT0;
  Clock::time_point previous = kT0 - microseconds(1);
  std::uniform_int_distribution<int> step(1, 700);
  while (f.wheel.size() > 0) {
    now += microseconds(step(rng));
    f.wheel.advance(now, [&](TimerWheel::Entry& e) {
      const auto& item = static_cast<Item&>(e);
      EXPECT_LE(item.due(), now);
      EXPECT_GT(item.due(), previous) << "fired late: it was due at an earlier advance";
      EXPECT_EQ(fired_at[item.id], -1) << "fired twice";
      fired_at[item.id] = 1;
    });
    previous = now;
  }
  for (std::size_t i = 0; i < kN; ++i) EXPECT_EQ(fired_at[i], 1) << i;
}

TEST(SimTimerWheel, SameTickFiresInOneAdvance) {
  Fixture f(100);
  // All due at the same instant, and 50 more a few microseconds apart in the same tick.
  for (int i = 0; i < 50; ++i) f.wheel.schedule(f.items[i], kT0 + microseconds(420));
  for (int i = 50; i < 100; ++i) f.wheel.schedule(f.items[i], kT0 + microseconds(401 + i - 50));
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(401));
  const auto ids = f.advance(kT0 + microseconds(460));
  EXPECT_EQ(ids.size(), 100u);
  // Within a tick, in the order scheduled.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(ids[i], i);
}

TEST(SimTimerWheel, CancelledEntriesNeverFire) {
  Fixture f(4);
  for (int i = 0; i < 4; ++i) f.wheel.schedule(f.items[i], kT0 + microseconds(100 * (i + 1)));
  f.wheel.cancel(f.items[0]);  // the head of the earliest slot
  f.wheel.cancel(f.items[2]);
  f.wheel.cancel(f.items[2]);  // twice: a no-op
  EXPECT_FALSE(f.items[0].scheduled());
  EXPECT_EQ(f.wheel.size(), 2u);
  EXPECT_EQ(f.advance(kT0 + milliseconds(1)), (std::vector<int>{1, 3}));
  // Cancelling the only entry of a slot leaves nothing due.
  f.wheel.schedule(f.items[0], kT0 + milliseconds(2));
  f.wheel.cancel(f.items[0]);
  EXPECT_EQ(f.wheel.next_due(), std::nullopt);
  EXPECT_TRUE(f.advance(kT0 + milliseconds(3)).empty());
}

TEST(SimTimerWheel, CancelFromAFireCallback) {
  // A session whose write fails closes, and may cancel another due in the same advance.
  Fixture f(3);
  for (int i = 0; i < 3; ++i) f.wheel.schedule(f.items[i], kT0 + microseconds(100));
  std::vector<int> ids;
  f.wheel.advance(kT0 + microseconds(100), [&](TimerWheel::Entry& e) {
    const auto& item = static_cast<Item&>(e);
    ids.push_back(item.id);
    if (item.id == 0) f.wheel.cancel(f.items[1]);
  });
  EXPECT_EQ(ids, (std::vector<int>{0, 2}));
  EXPECT_EQ(f.wheel.size(), 0u);
}

TEST(SimTimerWheel, RescheduleFromAFireCallback) {
  // The next token of a session: scheduled while its current one fires.
  Fixture f(1);
  f.wheel.schedule(f.items[0], kT0 + microseconds(100));
  int fires = 0;
  auto again = [&](TimerWheel::Entry& e) {
    ++fires;
    f.wheel.schedule(e, e.due() + milliseconds(1));
  };
  EXPECT_EQ(f.wheel.advance(kT0 + microseconds(100), again), 1u);
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(1100));
  EXPECT_EQ(f.wheel.advance(kT0 + microseconds(1099), again), 0u);
  EXPECT_EQ(f.wheel.advance(kT0 + microseconds(1100), again), 1u);
  // One scheduled in the past from a callback fires at the next advance, not in a loop now.
  f.wheel.advance(kT0 + microseconds(2100), [&](TimerWheel::Entry& e) {
    ++fires;
    f.wheel.schedule(e, kT0);
  });
  EXPECT_EQ(fires, 3);
  EXPECT_EQ(f.wheel.advance(kT0 + microseconds(2100), again), 1u);
}

TEST(SimTimerWheel, RescheduleMovesAnEntry) {
  Fixture f(2);
  f.wheel.schedule(f.items[0], kT0 + microseconds(200));
  f.wheel.schedule(f.items[1], kT0 + microseconds(300));
  f.wheel.schedule(f.items[0], kT0 + microseconds(500));  // a stall pushes it back
  EXPECT_EQ(f.wheel.size(), 2u);
  EXPECT_EQ(f.advance(kT0 + microseconds(400)), (std::vector<int>{1}));
  EXPECT_EQ(f.advance(kT0 + microseconds(500)), (std::vector<int>{0}));
}

TEST(SimTimerWheel, FarDeadlinesWrapAround) {
  // Beyond the 6.4 ms horizon: several turns away, in slots shared with near deadlines.
  Fixture f(4);
  f.wheel.schedule(f.items[0], kT0 + microseconds(250));          // slot 2
  f.wheel.schedule(f.items[1], kT0 + microseconds(6400 + 250));   // slot 2, next turn
  f.wheel.schedule(f.items[2], kT0 + microseconds(64000 + 270));  // slot 2, ten turns on
  f.wheel.schedule(f.items[3], kT0 + seconds(3600));              // an hour away
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(250));
  EXPECT_EQ(f.advance(kT0 + microseconds(300)), (std::vector<int>{0}));
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(6650));
  // Advancing through every slot of the turn, tick by tick, fires nothing early.
  for (int t = 4; t < 66; ++t) EXPECT_TRUE(f.advance(kT0 + microseconds(100 * t)).empty()) << t;
  EXPECT_EQ(f.advance(kT0 + microseconds(6650)), (std::vector<int>{1}));
  EXPECT_EQ(f.wheel.next_due(), kT0 + microseconds(64270));
  // One jump over many turns: the ten-turn one fires; the hour stays.
  EXPECT_TRUE(f.advance(kT0 + microseconds(64269)).empty());
  EXPECT_EQ(f.advance(kT0 + microseconds(64270)), (std::vector<int>{2}));
  EXPECT_EQ(f.wheel.next_due(), kT0 + seconds(3600));
  EXPECT_TRUE(f.advance(kT0 + seconds(3599)).empty());
  EXPECT_EQ(f.advance(kT0 + seconds(3601)), (std::vector<int>{3}));
}

TEST(SimTimerWheel, PastDeadlinesFireAtTheNextAdvance) {
  Fixture f(2);
  f.advance(kT0 + milliseconds(10));
  f.wheel.schedule(f.items[0], kT0);  // long past
  f.wheel.schedule(f.items[1], kT0 - seconds(1));
  EXPECT_EQ(f.wheel.next_due(), kT0 - seconds(1));
  EXPECT_EQ(f.advance(kT0 + milliseconds(10)), (std::vector<int>{0, 1}));
}

TEST(SimTimerWheel, DestructionUnlinksWhatIsLeft) {
  Item item;
  {
    TimerWheel wheel(microseconds(100), 64, kT0);
    wheel.schedule(item, kT0 + seconds(1));
    EXPECT_TRUE(item.scheduled());
  }
  EXPECT_FALSE(item.scheduled());
}

// LoopTimers on a real io_context: tasks run at or after their time, a cancelled one never, and
// the loop holds a task only while it waits.
struct Task : TimedTask {
  std::vector<Clock::duration>* late = nullptr;
  Clock::time_point due;
  int runs = 0;
  void on_due() override {
    ++runs;
    late->push_back(Clock::now() - due);
  }
};

TEST(SimTimerWheel, LoopTimersRunTasksOnTime) {
  boost::asio::io_context ioc{1};
  std::vector<Clock::duration> late;
  std::vector<std::shared_ptr<Task>> tasks;
  std::weak_ptr<Task> far_watch;
  {
    LoopTimers timers(ioc);
    const auto start = Clock::now();
    for (int i = 0; i < 40; ++i) {
      auto t = std::make_shared<Task>();
      t->late = &late;
      t->due = start + microseconds(500 * (i % 20) + 1000);  // pairs due at the same time
      timers.schedule(t, t->due);
      tasks.push_back(t);
    }
    timers.cancel(*tasks[5]);
    auto far = std::make_shared<Task>();
    far->late = &late;
    far->due = start + seconds(600);
    timers.schedule(far, far->due);
    far_watch = far;
    far.reset();
    EXPECT_FALSE(far_watch.expired()) << "the loop holds a waiting task";
    ioc.run_for(milliseconds(50));
    EXPECT_EQ(late.size(), 39u);
    EXPECT_FALSE(far_watch.expired());
  }
  EXPECT_TRUE(far_watch.expired()) << "destroying the timers lets go of a waiting task";
  EXPECT_EQ(late.size(), 39u) << "without running it";
  for (std::size_t i = 0; i < tasks.size(); ++i) EXPECT_EQ(tasks[i]->runs, i == 5 ? 0 : 1) << i;
  for (const auto d : late) EXPECT_GE(d.count(), 0) << "a task ran before its time";
}

}  // namespace
}  // namespace tokenbench::sim
