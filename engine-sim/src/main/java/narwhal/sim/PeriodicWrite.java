package narwhal.sim;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Something written into an open streamed response every interval until stopped: SSE keep-alive
 * comments while a silence fault holds the tokens back, metadata chunks during a metadata fault.
 * A tick that finds the client not writable skips its write rather than queue it, as an engine's
 * keep-alive would. Confined to the channel's event loop.
 */
final class PeriodicWrite {

  private final ChannelHandlerContext ctx;
  private final long intervalMillis;
  private final Runnable write;
  private @Nullable ScheduledFuture<?> timer;
  private boolean stopped;

  private PeriodicWrite(ChannelHandlerContext ctx, long intervalMillis, Runnable write) {
    this.ctx = ctx;
    this.intervalMillis = intervalMillis;
    this.write = write;
  }

  /** Starts writing; the first write comes one interval from now. */
  static PeriodicWrite start(ChannelHandlerContext ctx, long intervalMillis, Runnable write) {
    PeriodicWrite periodic = new PeriodicWrite(ctx, intervalMillis, write);
    periodic.schedule();
    return periodic;
  }

  /** No write after this one; idempotent. */
  void stop() {
    stopped = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void schedule() {
    timer = ctx.executor().schedule(this::tick, intervalMillis, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    timer = null;
    if (stopped) {
      return;
    }
    if (ctx.channel().isWritable()) {
      write.run();
    }
    schedule();
  }
}
