package narwhal.sim;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The socket end of an engine connection's pipeline: while the engine is frozen ({@link
 * SimEngine#freeze()}) it holds back every write, flush, read and close, as a stopped process
 * (SIGSTOP, a GC pause, a hung driver) would leave its sockets: open, silent, unread. {@link
 * #release()} lets everything held through in order, as such a process does when it resumes.
 *
 * <p>Timers keep running while frozen, so a stream's tokens pile up here and arrive in a burst.
 * Confined to the channel's event loop.
 */
final class FreezeGate extends ChannelDuplexHandler {

  private final AtomicBoolean frozen;
  private @Nullable PendingWriteQueue held;
  private boolean flushHeld;
  private boolean readHeld;
  private @Nullable ChannelPromise closeHeld;

  FreezeGate(AtomicBoolean frozen) {
    this.frozen = frozen;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    held = new PendingWriteQueue(ctx);
  }

  /** Whether to hold an operation: frozen, or thawed with held writes not yet let through. */
  private boolean holding() {
    return frozen.get() || (held != null && !held.isEmpty()) || closeHeld != null;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (holding() && held != null) {
      held.add(msg, promise);
    } else {
      ctx.write(msg, promise);
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (holding()) {
      flushHeld = true;
    } else {
      ctx.flush();
    }
  }

  @Override
  public void read(ChannelHandlerContext ctx) {
    if (frozen.get()) {
      readHeld = true;
    } else {
      ctx.read();
    }
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (holding() && ctx.channel().isActive()) {
      closeHeld = promise;
    } else {
      ctx.close(promise);
    }
  }

  /** Thawed: writes, flush, close and read held while frozen go through in order. */
  void release(ChannelHandlerContext ctx) {
    if (frozen.get()) {
      return; // frozen again before this task ran
    }
    if (held != null) {
      held.removeAndWriteAll();
    }
    if (flushHeld) {
      flushHeld = false;
      ctx.flush();
    }
    ChannelPromise close = closeHeld;
    closeHeld = null;
    if (close != null) {
      ctx.close(close);
    }
    if (readHeld) {
      readHeld = false;
      ctx.read();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    failHeld();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    failHeld();
  }

  private void failHeld() {
    if (held != null && !held.isEmpty()) {
      held.removeAndFailAll(new ClosedChannelException());
    }
    if (closeHeld != null) {
      closeHeld.trySuccess();
      closeHeld = null;
    }
  }
}
