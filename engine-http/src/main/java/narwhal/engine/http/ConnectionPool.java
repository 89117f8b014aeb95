package narwhal.engine.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Keep-alive connections to engines, kept per event loop and engine authority (scheme, host and
 * port). A TLS connection is handed out only once its handshake is done, so a handshake that
 * fails (a certificate problem) fails the acquire like a refused connect.
 *
 * <p>A connection is only ever used on the loop it was opened on, so each loop's idle connections
 * are plain collections confined to that loop: {@link #acquire} and {@link #release} must be called
 * on the loop they name. Idle connections are bounded per engine, closed after an idle timeout,
 * and forgotten as soon as they close (for example when the engine drops them), so a pooled
 * connection is almost always still usable; {@link #acquire} checks once more before reuse.
 *
 * <p>Why not {@code io.netty.channel.pool.SimpleChannelPool}: it connects with one fixed {@code
 * Bootstrap} and has no per-acquire hook, but the connect timeout comes with each exchange; it
 * neither bounds nor expires idle channels and keeps closed ones until the next acquire polls
 * them; and its {@code close()} waits on each channel's close future, which would block (or
 * deadlock) when the transport is closed from an event loop. Working around all of that would
 * leave little of it in use.
 */
final class ConnectionPool {

  /** What a new connection is for: the channel initializer adds TLS for an https engine from it. */
  record Target(EngineAddress engine, int connectTimeoutMillis) {}

  /** Set on every channel the pool opens, before its initializer runs. */
  static final AttributeKey<Target> TARGET = AttributeKey.valueOf("narwhal.engine.target");

  private final Bootstrap template;
  private final int maxIdlePerEngine;
  private final long idleTimeoutNanos;
  private final ConcurrentMap<EventLoop, LoopConnections> byLoop = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private volatile boolean closed;

  /**
   * @param template a bootstrap with channel class, options and handler set; cloned per connect
   */
  ConnectionPool(Bootstrap template, int maxIdlePerEngine, Duration idleTimeout) {
    this.template = template;
    this.maxIdlePerEngine = maxIdlePerEngine;
    this.idleTimeoutNanos = idleTimeout.toNanos();
  }

  /**
   * A connection to {@code engine} on {@code loop}: an idle one that is still active, or a new one.
   * Must be called on {@code loop}. The future fails with the connect error, or with an {@link
   * IllegalStateException} once the pool is closed.
   */
  Future<Channel> acquire(EventLoop loop, EngineAddress engine, int connectTimeoutMillis) {
    // Register the loop before reading `closed`: close() sets `closed` before it walks the loops,
    // so either it sees this loop or this call sees `closed` (see close()).
    LoopConnections connections = byLoop.computeIfAbsent(loop, LoopConnections::new);
    if (closed) {
      return loop.newFailedFuture(new IllegalStateException("engine transport is closed"));
    }
    Channel reused = connections.pollActive(engine.authority());
    if (reused != null) {
      return loop.newSucceededFuture(reused);
    }
    return connect(loop, engine, connectTimeoutMillis, connections);
  }

  /**
   * Starts a connection to {@code engine} on {@code loop} for an exchange expected there soon,
   * unless an idle one is kept there already or one is being readied; once connected (and past its
   * TLS handshake) it waits among the idle ones, where {@link #acquire} takes it first. A failed
   * connect is dropped: the exchange that follows connects again and reports its own failure. An
   * exchange that acquires while this connect is still under way opens its own connection rather
   * than wait for it (the caller readies one when it has milliseconds to spare, as while an engine
   * prefills). Must be called on {@code loop}.
   */
  void prepare(EventLoop loop, EngineAddress engine, int connectTimeoutMillis) {
    LoopConnections connections = byLoop.computeIfAbsent(loop, LoopConnections::new);
    String authority = engine.authority();
    if (closed || connections.hasActive(authority) || !connections.preparing.add(authority)) {
      return;
    }
    Future<Channel> connecting = connect(loop, engine, connectTimeoutMillis, connections);
    connecting.addListener(done -> {
      connections.preparing.remove(authority);
      if (connecting.isSuccess()) {
        release(connecting.getNow(), engine);
      }
    });
  }

  /**
   * Offers a connection whose exchange completed cleanly for reuse; closes it instead when the
   * pool is closed or full, or the connection is no longer active. Must be called on the
   * connection's loop.
   */
  void release(Channel channel, EngineAddress engine) {
    LoopConnections connections = byLoop.get(channel.eventLoop());
    if (closed || connections == null || !channel.isActive()) {
      channel.close();
      return;
    }
    connections.offer(engine.authority(), channel);
  }

  /** Live connections, idle and in use. */
  int openConnections() {
    return open.get();
  }

  /**
   * Closes every idle connection, asynchronously on its loop; connections in use are closed when
   * their exchange ends. Never blocks, so it may be called from an event loop.
   */
  void close() {
    closed = true;
    for (LoopConnections connections : byLoop.values()) {
      try {
        if (connections.loop.inEventLoop()) {
          connections.closeAll();
        } else {
          connections.loop.execute(connections::closeAll);
        }
      } catch (RejectedExecutionException e) {
        // The loop is shutting down and closes its channels itself.
      }
    }
  }

  private Future<Channel> connect(
      EventLoop loop, EngineAddress engine, int connectTimeoutMillis, LoopConnections connections) {
    Promise<Channel> promise = loop.newPromise();
    ChannelFuture connecting =
        template
            .clone(loop)
            .attr(TARGET, new Target(engine, connectTimeoutMillis))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
            .connect(engine.socketAddress());
    // An exchange cancelled while connecting cancels the connect itself: Netty then closes the
    // half-open socket at once instead of letting it run to the connect timeout. Cancelled during
    // the TLS handshake, the connection is closed the same way.
    promise.addListener(acquired -> {
      if (acquired.isCancelled()) {
        if (!connecting.cancel(false) && connecting.isSuccess()) {
          connecting.channel().close();
        }
      }
    });
    connecting.addListener(
        done -> {
          if (!done.isSuccess()) {
            promise.tryFailure(done.cause());
            return;
          }
          Channel channel = connecting.channel();
          open.incrementAndGet();
          channel
              .closeFuture()
              .addListener(
                  closedFuture -> {
                    open.decrementAndGet();
                    connections.forget(engine.authority(), channel);
                  });
          SslHandler tls = channel.pipeline().get(SslHandler.class);
          if (tls == null) {
            handOver(channel, promise);
            return;
          }
          // Usable only once the handshake is done: a certificate problem is a connect failure.
          tls.handshakeFuture().addListener(handshake -> {
            if (handshake.isSuccess()) {
              handOver(channel, promise);
            } else {
              channel.close();
              promise.tryFailure(handshake.cause());
            }
          });
        });
    return promise;
  }

  private void handOver(Channel channel, Promise<Channel> promise) {
    if (closed) {
      channel.close();
      promise.tryFailure(new IllegalStateException("engine transport is closed"));
    } else if (!promise.trySuccess(channel)) {
      channel.close(); // its exchange was cancelled as the connect completed
    }
  }

  /** One idle connection and since when ({@link System#nanoTime}) it has been idle. */
  private record Idle(Channel channel, long idleSinceNanos) {}

  /**
   * The idle connections of one loop; touched only on that loop.
   *
   * <p>Idle expiry is one sweep timer per loop, not a timer per connection: releasing and reusing
   * a connection happens twice per request (prefill and decode leg), and a per-connection timer
   * meant a schedule and a cancel on the timer queue each time.
   */
  private final class LoopConnections {
    final EventLoop loop;
    /** Per engine authority, most recently used first (a warm connection is the safest bet). */
    final Map<String, ArrayDeque<Idle>> idle = new HashMap<>();
    /** Engine authorities with a connection being readied ({@link #prepare}), one at a time each. */
    final Set<String> preparing = new HashSet<>();
    private @Nullable ScheduledFuture<?> sweep;

    LoopConnections(EventLoop loop) {
      this.loop = loop;
    }

    Channel pollActive(String authority) {
      ArrayDeque<Idle> queue = idle.get(authority);
      if (queue == null) {
        return null;
      }
      Channel found = null;
      while (found == null && !queue.isEmpty()) {
        Idle candidate = queue.pollFirst();
        if (candidate.channel.isActive()) {
          found = candidate.channel;
        } else {
          candidate.channel.close();
        }
      }
      if (queue.isEmpty()) {
        idle.remove(authority);
      }
      return found;
    }

    boolean hasActive(String authority) {
      ArrayDeque<Idle> queue = idle.get(authority);
      if (queue != null) {
        for (Idle entry : queue) {
          if (entry.channel.isActive()) {
            return true;
          }
        }
      }
      return false;
    }

    void offer(String authority, Channel channel) {
      ArrayDeque<Idle> queue = idle.computeIfAbsent(authority, a -> new ArrayDeque<>());
      if (queue.size() >= maxIdlePerEngine) {
        channel.close();
        return;
      }
      queue.addFirst(new Idle(channel, System.nanoTime()));
      if (sweep == null) {
        sweep = loop.schedule(this::sweep, idleTimeoutNanos, TimeUnit.NANOSECONDS);
      }
    }

    /** Closes connections idle for the whole timeout; runs again while any stay idle. */
    private void sweep() {
      sweep = null;
      long now = System.nanoTime();
      long nextDue = Long.MAX_VALUE;
      List<Channel> expired = new ArrayList<>();
      for (ArrayDeque<Idle> queue : idle.values()) {
        // Oldest last: expired entries are a run at the tail.
        while (!queue.isEmpty() && now - queue.peekLast().idleSinceNanos >= idleTimeoutNanos) {
          expired.add(queue.pollLast().channel);
        }
        if (!queue.isEmpty()) {
          nextDue = Math.min(nextDue, queue.peekLast().idleSinceNanos + idleTimeoutNanos);
        }
      }
      idle.values().removeIf(ArrayDeque::isEmpty);
      // Closed after the walk: a close notifies forget() inline, which edits these queues.
      expired.forEach(Channel::close);
      if (nextDue != Long.MAX_VALUE) {
        sweep = loop.schedule(this::sweep, Math.max(0, nextDue - now), TimeUnit.NANOSECONDS);
      }
    }

    /** A connection closed: drop it if it was idle. Runs on the loop (close futures notify there). */
    void forget(String authority, Channel channel) {
      ArrayDeque<Idle> queue = idle.get(authority);
      if (queue == null) {
        return;
      }
      for (Iterator<Idle> it = queue.iterator(); it.hasNext(); ) {
        Idle entry = it.next();
        if (entry.channel == channel) {
          it.remove();
          break;
        }
      }
      if (queue.isEmpty()) {
        idle.remove(authority);
      }
    }

    void closeAll() {
      // Detach first: closing notifies forget() inline, which must not meet a map being iterated.
      List<Idle> all = new ArrayList<>();
      idle.values().forEach(all::addAll);
      idle.clear();
      if (sweep != null) {
        sweep.cancel(false);
        sweep = null;
      }
      for (Idle entry : all) {
        entry.channel.close();
      }
    }
  }
}
