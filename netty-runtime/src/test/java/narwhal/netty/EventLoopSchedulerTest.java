package narwhal.netty;

import narwhal.testing.Poll;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import narwhal.time.Timer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EventLoopSchedulerTest {

  private static EventLoopGroup group;

  @BeforeAll
  static void startGroup() {
    group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  }

  @AfterAll
  static void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void of_returnsOneInstancePerLoop() {
    EventLoop first = group.next();
    EventLoop second = group.next();

    assertThat(first).isNotSameAs(second);
    assertThat(EventLoopScheduler.of(first)).isSameAs(EventLoopScheduler.of(first));
    assertThat(EventLoopScheduler.of(first)).isNotSameAs(EventLoopScheduler.of(second));
    assertThat(EventLoopScheduler.of(first).eventLoop()).isSameAs(first);
  }

  @Test
  void execute_runsOnTheLoop_whereInLoopHolds() throws Exception {
    EventLoopScheduler scheduler = EventLoopScheduler.of(group.next());
    CompletableFuture<Boolean> inLoop = new CompletableFuture<>();

    scheduler.execute(() -> inLoop.complete(scheduler.inLoop() && scheduler.eventLoop().inEventLoop()));

    assertThat(inLoop.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(scheduler.inLoop()).isFalse();
  }

  @Test
  void schedule_runsOnTheLoopAfterTheDelay() throws Exception {
    EventLoopScheduler scheduler = EventLoopScheduler.of(group.next());
    CompletableFuture<Long> ranAt = new CompletableFuture<>();
    long start = scheduler.nanoTime();

    Timer timer = scheduler.schedule(() -> ranAt.complete(scheduler.inLoop() ? scheduler.nanoTime() : -1L), 20, TimeUnit.MILLISECONDS);

    assertThat(ranAt.get(5, TimeUnit.SECONDS) - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
    assertThat(timer.cancel()).as("cancel after running").isFalse();
  }

  @Test
  void cancel_beforeItRuns_preventsTheTask() {
    EventLoopScheduler scheduler = EventLoopScheduler.of(group.next());
    AtomicBoolean ran = new AtomicBoolean();

    Timer timer = scheduler.schedule(() -> ran.set(true), 1, TimeUnit.HOURS);

    assertThat(timer.cancel()).isTrue();
    assertThat(timer.cancel()).isFalse();
    assertThat(ran).isFalse();
  }

  @Test
  void terminatedLoop_isForgotten() {
    EventLoopGroup shortLived = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EventLoop loop = shortLived.next();
    EventLoopScheduler before = EventLoopScheduler.of(loop);

    shortLived.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();

    Poll.until("the cache drops the terminated loop", () -> EventLoopScheduler.of(loop) != before);
  }
}
