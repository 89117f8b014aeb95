package narwhal.netty;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import narwhal.time.Scheduler;
import narwhal.time.Timer;

/**
 * A {@link Scheduler} that is one Netty {@link EventLoop}.
 *
 * <p>Front-ends turn the accepting channel's event loop into the request's scheduler with {@link
 * #of(EventLoop)}; {@link NettyEngineTransport} recognises it and opens the engine connection on
 * the same loop, so a request's client side, its state machine and its engine side share one thread
 * and need no hand-offs. {@link #of} returns the same instance for the same loop for as long as the
 * loop is alive.
 */
public final class EventLoopScheduler implements Scheduler {

  /** Entries leave when their loop terminates, so short-lived groups (tests) leave nothing behind. */
  private static final ConcurrentMap<EventLoop, EventLoopScheduler> BY_LOOP = new ConcurrentHashMap<>();

  private final EventLoop eventLoop;

  private EventLoopScheduler(EventLoop eventLoop) {
    this.eventLoop = eventLoop;
  }

  /** The scheduler for {@code eventLoop}; the same instance on every call while the loop lives. */
  public static EventLoopScheduler of(EventLoop eventLoop) {
    Objects.requireNonNull(eventLoop, "eventLoop");
    EventLoopScheduler existing = BY_LOOP.get(eventLoop);
    if (existing != null) {
      return existing;
    }
    EventLoopScheduler created = new EventLoopScheduler(eventLoop);
    existing = BY_LOOP.putIfAbsent(eventLoop, created);
    if (existing != null) {
      return existing;
    }
    // Registered outside the map update: on an already-terminated loop the listener runs inline.
    eventLoop.terminationFuture().addListener(f -> BY_LOOP.remove(eventLoop, created));
    return created;
  }

  /** The wrapped loop. */
  public EventLoop eventLoop() {
    return eventLoop;
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Timer schedule(Runnable task, long delay, TimeUnit unit) {
    ScheduledFuture<?> future = eventLoop.schedule(task, Math.max(0, delay), unit);
    return () -> future.cancel(false);
  }

  @Override
  public boolean inLoop() {
    return eventLoop.inEventLoop();
  }

  @Override
  public void execute(Runnable command) {
    eventLoop.execute(command);
  }

  @Override
  public String toString() {
    return "EventLoopScheduler[" + eventLoop + "]";
  }
}
