package narwhal.grpc;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import narwhal.time.Scheduler;
import narwhal.netty.EventLoopScheduler;

/** Chooses the scheduler a new call (its state, its sink and its engine legs) runs on. */
@FunctionalInterface
interface LoopPicker {

  /** Called on the thread that starts the call; must not block. */
  Scheduler pick();

  /**
   * The event loop the call arrived on when it is one of {@code group}'s (gRPC and the engine
   * transport share the workers, and the server runs handlers on the transport thread), so the
   * call, its state machine and its engine connections share one thread; otherwise the group's
   * next loop.
   */
  static LoopPicker of(EventLoopGroup group) {
    return () -> {
      for (EventExecutor executor : group) {
        if (executor instanceof EventLoop && executor.inEventLoop()) {
          return EventLoopScheduler.of((EventLoop) executor);
        }
      }
      return EventLoopScheduler.of(group.next());
    };
  }
}
